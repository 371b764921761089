#pragma once
// Internal: what the two forms of many-rank selection share (sampled_multi_select.cu's edges,
// band_multi_select.cu's bands): the sample, prefix sums in one block, a rank's bucket, the
// phase timer. Device code: include from .cu only.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "key_traits.cuh"
#include "sampled_multi_select.cuh"
#include "seed_common.cuh"
#include "workspace_slots.cuh"

namespace robustfit::selection::cuda::detail::multi {

// A rank's position when its answer is known without candidates (an edge, a range one key wide).
constexpr unsigned long long kEqualityAnswer = ~0ull;

// The sample: keys at pseudo-random positions (seed::mix), as Floyd–Rivest's.
template <class T>
__global__ void draw_sample(const T* __restrict__ x, std::size_t n, int sample_size,
                            typename KeyTraits<T>::Key* __restrict__ sample) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < sample_size) sample[i] = KeyTraits<T>::to_key(x[seed::sample_index(std::uint64_t(i) + 1, n)]);
}

template <class Key>
void sort_keys(const Key* in, Key* out, int n, Workspace& workspace, cudaStream_t stream) {
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out, n, 0, int(sizeof(Key) * 8), stream));
  void* temp = workspace.device(kSampledMultiSortTemp, temp_bytes);
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, n, 0, int(sizeof(Key) * 8), stream));
}

// Exclusive prefix sums of `values(b)` for b < buckets into out[0..buckets] (one block of
// kThreads, each thread kItems consecutive buckets: kThreads * kItems > buckets); returns the total.
template <int kThreads, int kItems, class Values>
__device__ unsigned long long block_prefix_sums(int buckets, Values values, unsigned long long* out) {
  using Scan = cub::BlockScan<unsigned long long, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  const int first = threadIdx.x * kItems;
  unsigned long long sum = 0;
  for (int b = first; b < first + kItems && b < buckets; ++b) sum += values(b);
  unsigned long long running = 0, total = 0;
  Scan(temp).ExclusiveSum(sum, running, total);
  for (int b = first; b < first + kItems && b <= buckets; ++b) {
    out[b] = running;
    if (b < buckets) running += values(b);
  }
  __syncthreads();  // `out` is visible to the block, `temp` free again
  return total;
}

// The bucket holding rank k: the last b with before[b] <= k (before[0] = 0 <= k < before[buckets] = n).
template <class Count>
__device__ int bucket_of_rank(const Count* before, int buckets, std::size_t k) {
  int lo = 0, hi = buckets;  // before[lo] <= k < before[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (before[mid] <= k) lo = mid;
    else hi = mid;
  }
  return lo;
}

// A call's sample, ranks and answers in the workspace slots both forms share; the ranks copied
// to the device.
template <class T>
struct CallBuffers {
  using Key = typename KeyTraits<T>::Key;
  Key* sample;
  Key* sorted_sample;
  std::size_t* d_ranks;
  std::size_t* h_ranks;
  unsigned long long* positions;  // per rank: its bucket or range, or kEqualityAnswer
  T* d_out;
  T* h_out;

  CallBuffers(Workspace& workspace, int sample_size, const std::size_t* ks, std::size_t count, cudaStream_t stream)
      : sample(workspace.device_as<Key>(kSampledMultiSample, sample_size)),
        sorted_sample(workspace.device_as<Key>(kSampledMultiSorted, sample_size)),
        d_ranks(workspace.device_as<std::size_t>(kSampledMultiRanks, count)),
        h_ranks(workspace.host_as<std::size_t>(kSampledMultiRanks, count)),
        positions(workspace.device_as<unsigned long long>(kSampledMultiPositions, count)),
        d_out(workspace.device_as<T>(kSampledMultiOut, count)),
        h_out(workspace.host_as<T>(kSampledMultiOut, count)) {
    std::copy(ks, ks + count, h_ranks);
    CUDA_CHECK(cudaMemcpyAsync(d_ranks, h_ranks, count * sizeof(std::size_t), cudaMemcpyHostToDevice, stream));
  }
};

// The candidate buffer, sized before the counts are known (one synchronisation per call): each
// wanted bucket or range holds about n / parts values (a rank lands in a large one more often
// than in a small one), so 1.5 n / parts a rank + 2^16 rarely overflows, and an overflow costs a
// second compaction; at most max_candidates and n. `asked` >= 0: that size (tests: tiny).
inline unsigned long long initial_capacity(long long asked, std::size_t count, std::size_t n, int parts,
                                           double max_candidates) {
  const double guess = asked >= 0 ? static_cast<double>(asked)
                                  : 1.5 * static_cast<double>(count) * (static_cast<double>(n) / parts) + 65536.0;
  return static_cast<unsigned long long>(std::max(0.0, std::min({guess, max_candidates, static_cast<double>(n)})));
}

// Events between the phases of one call, when SampledMultiParams::phases asks for them.
class PhaseTimer {
 public:
  PhaseTimer(SampledMultiPhases* phases, cudaStream_t stream) : phases_(phases), stream_(stream) {
    if (phases_) mark("");
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  ~PhaseTimer() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  // The work enqueued since the previous mark is phase `name`.
  void mark(const char* name) {
    if (!phases_) return;
    cudaEvent_t e;
    CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
    names_.emplace_back(name);
    CUDA_CHECK(cudaEventRecord(e, stream_));
  }
  // After the call's last synchronisation.
  void report() {
    if (!phases_) return;
    phases_->names.clear();
    phases_->ms.clear();
    for (std::size_t i = 1; i < events_.size(); ++i) {
      float ms = 0;
      CUDA_CHECK(cudaEventSynchronize(events_[i]));
      CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i - 1], events_[i]));
      phases_->names.push_back(names_[i]);
      phases_->ms.push_back(ms);
    }
  }

 private:
  SampledMultiPhases* phases_;
  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;
  std::vector<std::string> names_;
};

}  // namespace robustfit::selection::cuda::detail::multi
