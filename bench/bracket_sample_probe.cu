// Issue 11, an experiment before changing anything: where the bracketing selections' one-block
// sample spends its time. ncu timed Floyd–Rivest's pick_bracket (one block of 512 threads, 8192
// keys drawn at pseudo-random positions, two order statistics selected in shared memory) at
// 24-27 µs on the H200 at every n from 2^20 to 2^28: as long as the pass over 2^24 floats
// (14-16 µs since the library draws with seed::sample_index and counts runs of a bin: "whole"
// 25 -> 13.4 us, bench/results/selection_sample_draw_h200_2026-12-02). This
// times its parts and alternatives, kernel by kernel (CUDA events around each launch, minus an
// empty kernel's time; L2 flushed before each launch so that the draw reads DRAM as in a call):
//   draw-mod     the draw as built (64-bit `% n` of a mixed index), keys summed
//   draw-mulhi   the same positions' count drawn with __umul64hi(mix, n) (no division)
//   draw-G       the 8192 keys drawn by G blocks (G = 16, 64), each writing its share to global
//   select       the library's select_two_ranks on keys made in registers (no loads)
//   select-match the same with lanes grouped by __match_any_sync before each shared atomic
//   select-equal, select-two-values   the select on one value, on 95 % ones and 5 % twos
//   whole        the library's draw + select (what pick_bracket does)
//
//   bench_bracket_sample_probe [--log-n 20,24,28] [--runs 20]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cub/block/block_merge_sort.cuh>

#include "../selection/src/cuda/block_sample_select.cuh"
#include "../selection/src/cuda/key_traits.cuh"
#include "../selection/src/cuda/seed_common.cuh"
#include "list_options.hpp"

namespace {

using robustfit::selection::cuda::detail::KeyTraits;
namespace bracketing = robustfit::selection::cuda::detail::bracketing;
namespace seed = robustfit::selection::cuda::detail::seed;

constexpr int kThreads = 512;
constexpr int kItems = 16;  // 8192 keys

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

__global__ void fill_uniform(float* x, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    x[i] = float(seed::mix(i + 12345) >> 40) * 0x1p-24f;
}

__global__ void empty_kernel(unsigned* out) {
  if (out != nullptr && threadIdx.x == 1024) *out = 1;
}

template <bool kMulHi>
__global__ __launch_bounds__(kThreads) void draw_kernel(const float* __restrict__ x, std::size_t n, unsigned* out) {
  unsigned sum = 0;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::uint64_t h = seed::mix(threadIdx.x * std::uint64_t{kItems} + j + 1);
    const std::size_t at = kMulHi ? __umul64hi(h, n) : h % n;
    sum += KeyTraits<float>::to_key(x[at]);
  }
  if (sum == 0x12345678u) *out = sum;
}

// G blocks draw the 8192 keys, each its share, to global memory.
__global__ void draw_spread_kernel(const float* __restrict__ x, std::size_t n, unsigned* keys) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kThreads * kItems) keys[i] = KeyTraits<float>::to_key(x[__umul64hi(seed::mix(i + 1), n)]);
}

__device__ __forceinline__ void count_match(unsigned* counts, int bin) {
  const unsigned active = __activemask();
  const unsigned peers = __match_any_sync(active, bin);
  if (bin >= 0 && static_cast<int>(threadIdx.x % 32) == __ffs(peers) - 1) atomicAdd(&counts[bin], __popc(peers));
}

// After a digit's histograms (counts[q]; one when both prefixes agree): warps 0 and 1 find the
// bin holding rank[q] and extend prefix[q] by it (`width` bits), as select_two_ranks does.
template <int kBins, class Storage>
__device__ void descend_one_digit(Storage& storage, int histograms, int width) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp < 2) {
    constexpr int kPerLane = kBins / 32;
    const unsigned* counts = storage.counts[histograms == 1 ? 0 : warp];
    unsigned mine[kPerLane], total = 0;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) total += mine[j] = counts[lane * kPerLane + j];
    unsigned inclusive = total;
    for (int d = 1; d < 32; d *= 2) {
      const unsigned other = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += other;
    }
    unsigned below = inclusive - total;
    const unsigned rank = storage.rank[warp];
    const unsigned prefix_q = storage.prefix[warp];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      if (rank >= below && rank < below + mine[j]) {
        storage.prefix[warp] = (prefix_q << width) | unsigned(lane * kPerLane + j);
        storage.rank[warp] = rank - below;
      }
      below += mine[j];
    }
  }
  __syncthreads();
}

// select_two_ranks with a chosen shared-memory count (a copy of block_sample_select.cuh's loop).
template <bool kMatch>
__device__ void select_two(const unsigned (&keys)[kItems], const unsigned (&wanted)[2],
                           bracketing::SampleSelectStorage<unsigned>& storage, unsigned (&found)[2]) {
  if constexpr (!kMatch) {
    unsigned repeats[2];
    bracketing::select_two_ranks<unsigned, kItems>(keys, wanted, storage, found, repeats);
  } else {
    constexpr int kBins = bracketing::kSelectBins, kDigit = bracketing::kSelectDigitBits;
    if (threadIdx.x < 2) {
      storage.prefix[threadIdx.x] = 0;
      storage.rank[threadIdx.x] = wanted[threadIdx.x];
    }
    for (int shift = 32 - kDigit; shift >= 0; shift -= kDigit) {
      for (int b = threadIdx.x; b < 2 * kBins; b += blockDim.x) (&storage.counts[0][0])[b] = 0;
      __syncthreads();
      const unsigned prefix[2] = {storage.prefix[0], storage.prefix[1]};
      const int histograms = prefix[0] == prefix[1] ? 1 : 2;
      for (int q = 0; q < histograms; ++q)
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
          const bool match = bracketing::shift_right(keys[j], shift + kDigit) == prefix[q];
          count_match(storage.counts[q], match ? static_cast<int>((keys[j] >> shift) & (kBins - 1)) : -1);
        }
      __syncthreads();
      descend_one_digit<kBins>(storage, histograms, kDigit);
    }
    found[0] = storage.prefix[0];
    found[1] = storage.prefix[1];
  }
}

// kSource 0: keys made in registers (uniform floats in [0, 1)); 1: drawn from x by the library's
// draw; 2: one value; 3: 95 % ones, 5 % twos.
template <int kSource, bool kMatch>
__global__ __launch_bounds__(kThreads) void select_kernel(const float* __restrict__ x, std::size_t n, unsigned* out) {
  __shared__ bracketing::SampleSelectStorage<unsigned> storage;
  unsigned keys[kItems];
  if (kSource == 1) {
    bracketing::draw_block_sample<float, kItems>(x, n, keys);
  } else {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const std::uint64_t h = seed::mix(threadIdx.x * std::uint64_t{kItems} + j + 1);
      const float v = kSource == 0 ? float(h >> 40) * 0x1p-24f : kSource == 2 ? 1.0f : (h % 100 < 95 ? 1.0f : 2.0f);
      keys[j] = KeyTraits<float>::to_key(v);
    }
  }
  const unsigned wanted[2] = {3900, 4292};
  unsigned found[2];
  select_two<kMatch>(keys, wanted, storage, found);
  if (threadIdx.x == 0) out[0] = found[0], out[1] = found[1];
}


// A generic two-rank MSD select over keys below 2^bits: kDigit-bit digits; kSkip: a warp whose
// kSkip (named for history): plain shared atomics instead of warp-aggregated counts.
template <int kDigit, bool kSkip>
struct GenericStorage {
  unsigned counts[2][1 << kDigit];
  unsigned prefix[2], rank[2];
};

template <int kDigit, bool kSkip>
__device__ void select_generic(const unsigned (&keys)[kItems], const unsigned (&wanted)[2], int bits,
                               GenericStorage<kDigit, kSkip>& storage, unsigned (&found)[2]) {
  constexpr int kBins = 1 << kDigit;
  if (threadIdx.x < 2) {
    storage.prefix[threadIdx.x] = 0;
    storage.rank[threadIdx.x] = wanted[threadIdx.x];
  }
  for (int shift = bits - kDigit; shift > -kDigit; shift -= kDigit) {
    const int s = shift < 0 ? 0 : shift;
    const int width = shift < 0 ? kDigit + shift : kDigit;
    for (int b = threadIdx.x; b < 2 * kBins; b += blockDim.x) (&storage.counts[0][0])[b] = 0;
    __syncthreads();
    const unsigned prefix[2] = {storage.prefix[0], storage.prefix[1]};
    const int histograms = prefix[0] == prefix[1] ? 1 : 2;
    for (int q = 0; q < histograms; ++q)
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const bool match = bracketing::shift_right(keys[j], s + width) == prefix[q];
        if (kSkip) {
          if (match) atomicAdd(&storage.counts[q][(keys[j] >> s) & ((1u << width) - 1)], 1u);  // plain RED
        } else {
          seed::count_in_shared(storage.counts[q], match ? static_cast<int>((keys[j] >> s) & ((1u << width) - 1)) : -1);
        }
      }
    __syncthreads();
    descend_one_digit<kBins>(storage, histograms, width);
  }
  found[0] = storage.prefix[0];
  found[1] = storage.prefix[1];
}

// source 0: uniform floats in [0, 1); 2: one value; 3: 95 % ones, 5 % twos.
__device__ void make_keys(unsigned (&keys)[kItems], int source = 0) {
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::uint64_t h = seed::mix(threadIdx.x * std::uint64_t{kItems} + j + 1);
    const float v = source == 0 ? float(h >> 40) * 0x1p-24f : source == 2 ? 1.0f : (h % 100 < 95 ? 1.0f : 2.0f);
    keys[j] = KeyTraits<float>::to_key(v);
  }
}

// kSpan: digits over key - min(keys), as many bits as max - min needs.
template <int kDigit, bool kSkip, bool kSpan, int kSource = 0>
__global__ __launch_bounds__(kThreads) void select_generic_kernel(unsigned* out) {
  __shared__ GenericStorage<kDigit, kSkip> storage;
  __shared__ unsigned lo_hi[2];
  unsigned keys[kItems];
  make_keys(keys, kSource);
  int bits = 32;
  unsigned base = 0;
  if (kSpan) {
    unsigned lo = ~0u, hi = 0;
#pragma unroll
    for (int j = 0; j < kItems; ++j) lo = min(lo, keys[j]), hi = max(hi, keys[j]);
    if (threadIdx.x == 0) lo_hi[0] = ~0u, lo_hi[1] = 0;
    __syncthreads();
    for (int d = 16; d > 0; d /= 2) {
      lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, d));
      hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, d));
    }
    if (threadIdx.x % 32 == 0) atomicMin(&lo_hi[0], lo), atomicMax(&lo_hi[1], hi);
    __syncthreads();
    base = lo_hi[0];
    bits = 32 - __clz(lo_hi[1] - base);
#pragma unroll
    for (int j = 0; j < kItems; ++j) keys[j] -= base;
  }
  const unsigned wanted[2] = {3900, 4292};
  unsigned found[2];
  select_generic<kDigit, kSkip>(keys, wanted, bits, storage, found);
  if (threadIdx.x == 0) out[0] = found[0] + base, out[1] = found[1] + base;
}

__global__ __launch_bounds__(kThreads) void keys_only_kernel(unsigned* out) {
  unsigned keys[kItems];
  make_keys(keys);
  unsigned sum = 0;
#pragma unroll
  for (int j = 0; j < kItems; ++j) sum += keys[j];
  if (sum == 0x12345678u) out[0] = sum;
}

__global__ __launch_bounds__(kThreads) void merge_sort_kernel(unsigned* out) {
  using Sort = cub::BlockMergeSort<unsigned, kThreads, kItems>;
  __shared__ typename Sort::TempStorage storage;
  unsigned keys[kItems];
  make_keys(keys);
  Sort(storage).Sort(keys, [](unsigned a, unsigned b) { return a < b; });
  // blocked arrangement: thread t holds ranks t*kItems .. t*kItems+kItems-1
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const unsigned r = threadIdx.x * kItems + j;
    if (r == 3900) out[0] = keys[j];
    if (r == 4292) out[1] = keys[j];
  }
}

struct Probe {
  float* x;
  unsigned* out;
  unsigned* keys;
  char* flush;
  std::size_t flush_bytes = std::size_t{200} << 20;
  cudaEvent_t start, stop;

  template <class Launch>
  double time_us(int runs, Launch launch) {
    std::vector<float> ms;
    for (int r = 0; r < runs + 2; ++r) {
      check(cudaMemsetAsync(flush, r, flush_bytes), "flush");
      check(cudaEventRecord(start), "record");
      launch();
      check(cudaEventRecord(stop), "record");
      check(cudaEventSynchronize(stop), "sync");
      float t = 0;
      check(cudaEventElapsedTime(&t, start, stop), "elapsed");
      if (r >= 2) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return 1000.0 * ms[ms.size() / 2];
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> log_ns{20, 24, 28};
  int runs = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--log-n") {
      log_ns.clear();
      for (const auto& s : robustfit::bench::split(argv[i + 1])) log_ns.push_back(std::stoi(s));
    } else if (arg == "--runs") {
      runs = std::stoi(argv[i + 1]);
    }
  }
  Probe p;
  const std::size_t max_n = std::size_t{1} << 28;
  check(cudaMalloc(&p.x, max_n * sizeof(float)), "malloc");
  check(cudaMalloc(&p.out, 64), "malloc");
  check(cudaMalloc(&p.keys, kThreads * kItems * sizeof(unsigned)), "malloc");
  check(cudaMalloc(&p.flush, p.flush_bytes), "malloc");
  fill_uniform<<<1024, 256>>>(p.x, max_n);
  check(cudaEventCreate(&p.start), "event");
  check(cudaEventCreate(&p.stop), "event");
  std::printf("log_n,variant,us,us_minus_empty,out0,out1\n");
  for (const int log_n : log_ns) {
    const std::size_t n = std::size_t{1} << log_n;
    const double empty = p.time_us(runs, [&] { empty_kernel<<<1, kThreads>>>(p.out); });
    auto row = [&](const char* name, double us) {
      unsigned got[2] = {0, 0};
      check(cudaMemcpy(got, p.out, sizeof got, cudaMemcpyDeviceToHost), "copy");
      std::printf("%d,%s,%.2f,%.2f,%08x,%08x\n", log_n, name, us, us - empty, got[0], got[1]);
      check(cudaMemset(p.out, 0, 64), "clear");
    };
    row("empty", empty);
    row("draw-mod", p.time_us(runs, [&] { draw_kernel<false><<<1, kThreads>>>(p.x, n, p.out); }));
    row("draw-mulhi", p.time_us(runs, [&] { draw_kernel<true><<<1, kThreads>>>(p.x, n, p.out); }));
    row("draw-16", p.time_us(runs, [&] { draw_spread_kernel<<<16, kThreads * kItems / 16>>>(p.x, n, p.keys); }));
    row("draw-64", p.time_us(runs, [&] { draw_spread_kernel<<<64, kThreads * kItems / 64>>>(p.x, n, p.keys); }));
    row("select", p.time_us(runs, [&] { select_kernel<0, false><<<1, kThreads>>>(p.x, n, p.out); }));
    row("select-equal", p.time_us(runs, [&] { select_kernel<2, false><<<1, kThreads>>>(p.x, n, p.out); }));
    row("select-two-values", p.time_us(runs, [&] { select_kernel<3, false><<<1, kThreads>>>(p.x, n, p.out); }));
    row("select-match", p.time_us(runs, [&] { select_kernel<0, true><<<1, kThreads>>>(p.x, n, p.out); }));
    row("select-8-red", p.time_us(runs, [&] { select_generic_kernel<8, true, false><<<1, kThreads>>>(p.out); }));
    row("select-8-agg", p.time_us(runs, [&] { select_generic_kernel<8, false, false><<<1, kThreads>>>(p.out); }));
    row("select-8-agg-equal", p.time_us(runs, [&] { select_generic_kernel<8, false, false, 2><<<1, kThreads>>>(p.out); }));
    row("select-8-agg-two-values", p.time_us(runs, [&] { select_generic_kernel<8, false, false, 3><<<1, kThreads>>>(p.out); }));
    row("select-8-red-equal", p.time_us(runs, [&] { select_generic_kernel<8, true, false, 2><<<1, kThreads>>>(p.out); }));
    row("select-11-red", p.time_us(runs, [&] { select_generic_kernel<11, true, false><<<1, kThreads>>>(p.out); }));
    row("select-8-span-red", p.time_us(runs, [&] { select_generic_kernel<8, true, true><<<1, kThreads>>>(p.out); }));
    row("select-11-span-red", p.time_us(runs, [&] { select_generic_kernel<11, true, true><<<1, kThreads>>>(p.out); }));
    row("select-12-span-red", p.time_us(runs, [&] { select_generic_kernel<12, true, true><<<1, kThreads>>>(p.out); }));
    row("select-11-span-agg", p.time_us(runs, [&] { select_generic_kernel<11, false, true><<<1, kThreads>>>(p.out); }));
    row("keys-only", p.time_us(runs, [&] { keys_only_kernel<<<1, kThreads>>>(p.out); }));
    row("merge-sort", p.time_us(runs, [&] { merge_sort_kernel<<<1, kThreads>>>(p.out); }));
    row("whole", p.time_us(runs, [&] { select_kernel<1, false><<<1, kThreads>>>(p.x, n, p.out); }));

  }
  check(cudaDeviceSynchronize(), "sync");
  return 0;
}
