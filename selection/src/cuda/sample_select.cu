// SampleSelect (Ribizel and Anzt): sample, sort the sample in one block, take splitters at its
// quantiles, place them in an implicit binary search tree in shared memory, give every
// element a one-byte bucket "oracle" while counting buckets (shared-memory counters, then one
// global atomic per bucket and block), find the bucket of rank k, filter it contiguously,
// recurse; a single block sorts the last few thousand candidates.
//
// Equality buckets: every splitter s_u has a bucket of its own holding the values equal to it,
// between the open buckets (s_{u-1}, s_u). A rank inside an equality bucket returns s_u at once
// (duplicate-heavy inputs finish in one level); an open bucket excludes the sampled elements,
// so every level discards something. Should levels stop halving the candidates (never seen
// with random sampling, but possible), the candidates are radix-sorted instead: exact, bounded.
//
// Extra memory: n one-byte oracles, two candidate vectors of up to n values (in practice ~n/100).
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include <limits>

#include "algorithms.cuh"
#include "seed_common.cuh"
#include "sort_values.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

constexpr int kTreeHeight = 7;
constexpr int kSplitters = (1 << kTreeHeight) - 1;   // 127 splitters in a complete tree
constexpr int kBuckets = 2 * kSplitters + 1;         // 128 open + 127 equality = 255 (one byte)
constexpr int kSampleThreads = 256;
constexpr int kSampleItems = 8;
constexpr int kSampleSize = kSampleThreads * kSampleItems;  // 2048 sampled elements
constexpr int kBaseThreads = 512;
constexpr int kBaseItems = 8;
constexpr std::size_t kBaseCaseSize = kBaseThreads * kBaseItems;  // sort in one block below this
constexpr int kThreads = 512;
constexpr int kBlocksPerSm = 4;
constexpr int kMaxStalledLevels = 2;  // levels that fail to halve before falling back to a sort

template <class T>
struct Splitters {
  T tree[kSplitters + 1];  // implicit tree, 1-based: children of i are 2i and 2i+1
  T sorted[kSplitters];    // the same splitters in order (equality tests)
};

template <class T>
struct State {
  unsigned long long rank;     // rank inside the chosen bucket
  unsigned long long count;    // size of the chosen bucket
  unsigned long long written;  // filter cursor
  unsigned int bucket;
  T value;                     // the answer, when the bucket is an equality bucket / base case
};

// In-order position of node i (1-based, depth d) in a complete tree of height kTreeHeight.
__device__ __forceinline__ int in_order(int i) {
  const int depth = 31 - __clz(i);
  return ((2 * (i - (1 << depth)) + 1) << (kTreeHeight - 1 - depth)) - 1;
}

// Sample kernel (one block): deterministic pseudo-random sample, sorted, splitters at the
// sample's (u+1)/128 quantiles laid out as the implicit tree.
template <class T>
__global__ __launch_bounds__(kSampleThreads) void pick_splitters(const T* __restrict__ x, std::size_t n, std::uint64_t level,
                               Splitters<T>* out) {
  using Sort = cub::BlockRadixSort<T, kSampleThreads, kSampleItems>;
  __shared__ typename Sort::TempStorage temp;
  __shared__ T sample[kSampleSize];
  T items[kSampleItems];
  for (int j = 0; j < kSampleItems; ++j) {
    const std::uint64_t id = threadIdx.x * std::uint64_t{kSampleItems} + j;
    items[j] = x[seed::mix(level * 0x9e3779b97f4a7c15ULL + id + 1) % n];
  }
  Sort(temp).Sort(items);  // blocked arrangement: thread t holds ranks t*items..t*items+items-1
  for (int j = 0; j < kSampleItems; ++j) sample[threadIdx.x * kSampleItems + j] = items[j];
  __syncthreads();
  constexpr int step = kSampleSize / (kSplitters + 1);
  for (int u = threadIdx.x; u < kSplitters; u += blockDim.x) out->sorted[u] = sample[(u + 1) * step];
  for (int i = 1 + threadIdx.x; i <= kSplitters; i += blockDim.x) out->tree[i] = sample[(in_order(i) + 1) * step];
}

template <class T>
__device__ __forceinline__ int bucket_of(T v, const T* tree, const T* sorted) {
  int i = 1;
#pragma unroll
  for (int level = 0; level < kTreeHeight; ++level) i = 2 * i + (tree[i] < v ? 1 : 0);
  const int below = i - (1 << kTreeHeight);  // number of splitters < v
  return 2 * below + (below < kSplitters && sorted[below] == v ? 1 : 0);
}

// Count kernel: tree search per element, oracle byte out, shared then global counts.
template <class T>
__global__ __launch_bounds__(kThreads) void count_buckets(const T* __restrict__ x, std::size_t n, const Splitters<T>* splitters,
                              unsigned char* __restrict__ oracles, unsigned long long* counts) {
  __shared__ T tree[kSplitters + 1];
  __shared__ T sorted[kSplitters];
  __shared__ unsigned int local[kBuckets];
  // The implicit tree starts at index 1 (tree[0] is never written nor read).
  for (int i = 1 + threadIdx.x; i <= kSplitters; i += blockDim.x) tree[i] = splitters->tree[i];
  for (int i = threadIdx.x; i < kSplitters; i += blockDim.x) sorted[i] = splitters->sorted[i];
  for (int i = threadIdx.x; i < kBuckets; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const int bucket = bucket_of(x[i], tree, sorted);
    oracles[i] = static_cast<unsigned char>(bucket);
    seed::count_in_shared(local, bucket);
  }
  seed::flush_counts(local, kBuckets, counts);
}

// Prefix sum over the bucket counts, the bucket of rank k; clears counts for the next level.
template <class T>
__global__ __launch_bounds__(256) void find_bucket(unsigned long long* counts, unsigned long long rank, const Splitters<T>* splitters,
                            State<T>* state) {
  using Scan = cub::BlockScan<unsigned long long, 256>;
  __shared__ typename Scan::TempStorage temp;
  const unsigned long long count = threadIdx.x < kBuckets ? counts[threadIdx.x] : 0;
  unsigned long long before = 0;
  Scan(temp).ExclusiveSum(count, before);
  if (threadIdx.x < kBuckets) counts[threadIdx.x] = 0;
  if (before <= rank && rank < before + count) {
    state->bucket = threadIdx.x;
    state->rank = rank - before;
    state->count = count;
    state->written = 0;
    if (threadIdx.x % 2 == 1) state->value = splitters->sorted[threadIdx.x / 2];
  }
}

// Filter kernel: the elements whose oracle names the chosen bucket, stored contiguously.
template <class T>
__global__ __launch_bounds__(kThreads) void filter_bucket(const T* __restrict__ x, const unsigned char* __restrict__ oracles,
                              std::size_t n, State<T>* state, T* __restrict__ out) {
  const unsigned char chosen = static_cast<unsigned char>(state->bucket);
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t rounds = (n + stride - 1) / stride;
  for (std::size_t r = 0; r < rounds; ++r) {
    const std::size_t i = r * stride + blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const bool keep = i < n && oracles[i] == chosen;
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    if (ballot == 0) continue;
    const unsigned long long at = seed::warp_append(0xffffffffu, ballot, &state->written);
    if (keep) out[at] = x[i];
  }
}

// Base case: one block sorts up to kBaseCaseSize values (padded with +inf) and reads rank k.
template <class T>
__global__ __launch_bounds__(kBaseThreads) void sort_in_one_block(const T* __restrict__ x, std::size_t n, unsigned long long rank, State<T>* state) {
  using Sort = cub::BlockRadixSort<T, kBaseThreads, kBaseItems>;
  __shared__ typename Sort::TempStorage temp;
  T items[kBaseItems];
  for (int j = 0; j < kBaseItems; ++j) {
    const std::size_t i = threadIdx.x * std::size_t{kBaseItems} + j;
    items[j] = i < n ? x[i] : std::numeric_limits<T>::infinity();
  }
  Sort(temp).Sort(items);
  for (int j = 0; j < kBaseItems; ++j)
    if (threadIdx.x * std::size_t{kBaseItems} + j == rank) state->value = items[j];
}

template <class T>
class SampleSelect {
 public:
  SampleSelect(std::size_t n, Workspace& workspace, cudaStream_t stream)
      : n_(n), workspace_(workspace), stream_(stream) {
    const std::size_t state_at = seed::align_up(sizeof(Splitters<T>));
    const std::size_t counts_at = state_at + seed::align_up(sizeof(State<T>));
    char* control = static_cast<char*>(workspace.device(kSampleControl, counts_at + kBuckets * sizeof(unsigned long long)));
    splitters_ = reinterpret_cast<Splitters<T>*>(control);
    state_ = reinterpret_cast<State<T>*>(control + state_at);
    counts_ = reinterpret_cast<unsigned long long*>(control + counts_at);
    host_state_ = static_cast<State<T>*>(workspace.host(kSampleControl, sizeof(State<T>)));
    CUDA_CHECK(cudaMemsetAsync(counts_, 0, kBuckets * sizeof(unsigned long long), stream_));
  }

  T run(const T* values, std::size_t k) {
    const T* current = values;
    std::size_t count = n_;
    unsigned long long rank = k;
    int stalls = 0;
    for (std::uint64_t level = 0;; ++level) {
      if (count <= kBaseCaseSize) {
        sort_in_one_block<T><<<1, kBaseThreads, 0, stream_>>>(current, count, rank, state_);
        CUDA_CHECK_LAUNCH();
        return fetch_state().value;
      }
      if (stalls >= kMaxStalledLevels) return sort_candidates(current, count, rank);
      unsigned char* oracles = workspace_.device_as<unsigned char>(kSampleOracles, n_);
      const unsigned grid = streaming_grid(count, kThreads, 1, kBlocksPerSm);
      pick_splitters<T><<<1, kSampleThreads, 0, stream_>>>(current, count, level, splitters_);
      CUDA_CHECK_LAUNCH();
      count_buckets<T><<<grid, kThreads, 0, stream_>>>(current, count, splitters_, oracles, counts_);
      CUDA_CHECK_LAUNCH();
      find_bucket<T><<<1, 256, 0, stream_>>>(counts_, rank, splitters_, state_);
      CUDA_CHECK_LAUNCH();
      const State<T> chosen = fetch_state();
      if (chosen.bucket % 2 == 1) return chosen.value;  // equality bucket: the splitter itself
      T* out = buffer(level % 2);
      filter_bucket<T><<<grid, kThreads, 0, stream_>>>(current, oracles, count, state_, out);
      CUDA_CHECK_LAUNCH();
      if (chosen.count > count / 2) ++stalls;
      current = out;
      count = chosen.count;
      rank = chosen.rank;
    }
  }

 private:
  State<T> fetch_state() {
    CUDA_CHECK(cudaMemcpyAsync(host_state_, state_, sizeof(State<T>), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return *host_state_;
  }

  T* buffer(int which) { return workspace_.device_as<T>(which == 0 ? kSampleBufferA : kSampleBufferB, n_); }

  // Fallback when sampling keeps failing: radix-sort the candidates (kSampleSortTemp is the
  // oracles' slot: no longer needed, it holds CUB's scratch).
  T sort_candidates(const T* current, std::size_t count, unsigned long long rank) {
    T* sorted = current == buffer(0) ? buffer(1) : buffer(0);
    sort_values(current, sorted, count, workspace_, kSampleSortTemp, stream_);
    CUDA_CHECK(cudaMemcpyAsync(&state_->value, sorted + rank, sizeof(T), cudaMemcpyDeviceToDevice, stream_));
    return fetch_state().value;
  }

  std::size_t n_;
  Workspace& workspace_;
  cudaStream_t stream_;
  Splitters<T>* splitters_ = nullptr;
  State<T>* state_ = nullptr;
  unsigned long long* counts_ = nullptr;
  State<T>* host_state_ = nullptr;
};

}  // namespace

template <class T>
T sample_select(const T* d_values, std::size_t n, std::size_t k, Workspace& workspace, cudaStream_t stream) {
  return SampleSelect<T>(n, workspace, stream).run(d_values, k);
}

template float sample_select<float>(const float*, std::size_t, std::size_t, Workspace&, cudaStream_t);
template double sample_select<double>(const double*, std::size_t, std::size_t, Workspace&, cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
