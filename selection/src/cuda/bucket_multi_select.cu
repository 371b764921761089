// bucketMultiSelect (Blanchard et al.): many order statistics of one vector at once.
//
// minmax; a sorted random sample of 1024 elements gives P = 16 intervals (pivots at sample
// ranks 22 + 70(j-1), j = 1..15, plus min and max); each interval gets 704 buckets with a linear
// projection of slope 704/(pivot gap), i.e. a kernel density estimate. One pass assigns every
// element a bucket (shared-memory counters, bucket id kept per element); cumulative counts tell
// which buckets hold the requested ranks ("active" buckets); their elements are copied out
// (reduce), sorted, and every rank is read from the sorted reduced vector.
//
// Exactness, beyond the paper: the bucket of x is monotone in x whatever the rounding (interval
// by comparison, projection clamped, NaN from inf/zero-width gaps mapped to the interval's
// first bucket), so the reduced vector keeps the buckets in order and its sort is exact. The
// first bucket of each interval holds exactly the values equal to its lower pivot (an equality
// bucket, after SampleSelect): ranks there are answered with the pivot without copying, which
// is what duplicate-heavy inputs need. If the active buckets still hold most of the input,
// the whole input is sorted instead (the reduce would not pay).
//
// Extra memory: n bucket ids (uint16), two vectors of up to n values, CUB sort scratch.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>

#include <algorithm>
#include <cmath>
#include <vector>

#include "algorithms.cuh"
#include "seed_common.cuh"
#include "sort_values.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

constexpr int kSampleThreads = 256;
constexpr int kSampleItems = 4;   // 256 x 4 = 1024 sampled elements (Blanchard et al.)
constexpr int kIntervals = 16;                              // P
constexpr int kFirstPivotRank = 22;                         // pivots at sample ranks 22 + 70(j-1)
constexpr int kPivotRankStep = 70;
constexpr int kBucketsPerInterval = 704;                    // b = B / P
constexpr int kBuckets = kIntervals * kBucketsPerInterval;  // B = 11264
constexpr double kSortInsteadFraction = 0.5;  // active buckets above this share of n: sort all
constexpr int kThreads = 512;
constexpr int kBlocksPerSm = 4;

template <class T>
struct Control {
  using Key = typename seed::OrderedKey<T>::type;
  Key min_key, max_key;
  T pivots[kIntervals + 1];  // pivots[0] = min, pivots[P] = max
  double slopes[kIntervals];
  unsigned long long written;
  unsigned long long counts[kBuckets];
};

template <class T>
__global__ __launch_bounds__(kThreads) void reset_control(Control<T>* control) {
  for (int i = threadIdx.x; i < kBuckets; i += blockDim.x) control->counts[i] = 0;
  if (threadIdx.x == 0) {
    control->min_key = ~typename Control<T>::Key{0};
    control->max_key = 0;
    control->written = 0;
  }
}

template <class T>
__global__ __launch_bounds__(kThreads) void min_max(const T* __restrict__ x, std::size_t n, Control<T>* control) {
  using Key = typename Control<T>::Key;
  using Ops = seed::OrderedKey<T>;
  Key lo = ~Key{0}, hi = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const Key key = Ops::from(x[i]);
    lo = key < lo ? key : lo;
    hi = key > hi ? key : hi;
  }
  using Reduce = cub::BlockReduce<Key, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const Key block_lo = Reduce(temp).Reduce(lo, ::cuda::minimum<>{});
  __syncthreads();
  const Key block_hi = Reduce(temp).Reduce(hi, ::cuda::maximum<>{});
  if (threadIdx.x == 0) {
    atomicMin(&control->min_key, block_lo);
    atomicMax(&control->max_key, block_hi);
  }
}

// Sorted sample -> pivots and slopes (Subroutine 1). One block.
template <class T>
__global__ __launch_bounds__(kSampleThreads) void make_intervals(const T* __restrict__ x, std::size_t n, Control<T>* control) {
  using Sort = cub::BlockRadixSort<T, kSampleThreads, kSampleItems>;
  __shared__ typename Sort::TempStorage temp;
  T items[kSampleItems];
  for (int j = 0; j < kSampleItems; ++j)
    items[j] = x[seed::mix(threadIdx.x * std::uint64_t{kSampleItems} + j + 1) % n];
  Sort(temp).Sort(items);  // blocked: thread t holds sample ranks t*items .. t*items+items-1
  for (int j = 0; j < kSampleItems; ++j) {
    const int rank = threadIdx.x * kSampleItems + j;
    if (rank >= kFirstPivotRank && (rank - kFirstPivotRank) % kPivotRankStep == 0) {
      const int pivot = 1 + (rank - kFirstPivotRank) / kPivotRankStep;
      if (pivot < kIntervals) control->pivots[pivot] = items[j];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    control->pivots[0] = seed::OrderedKey<T>::to(control->min_key);
    control->pivots[kIntervals] = seed::OrderedKey<T>::to(control->max_key);
  }
  __syncthreads();
  if (threadIdx.x < kIntervals) {  // bucket 0 of each interval is its equality bucket
    const double gap = static_cast<double>(control->pivots[threadIdx.x + 1]) - static_cast<double>(control->pivots[threadIdx.x]);
    control->slopes[threadIdx.x] = (kBucketsPerInterval - 1) / gap;  // inf/0/NaN are guarded below
  }
}

// Monotone in x: interval by comparison; inside it, the equality bucket, then a clamped projection.
template <class T>
__device__ __forceinline__ int bucket_of(T v, const T* pivots, const double* slopes) {
  int interval = 0;
#pragma unroll
  for (int step = kIntervals / 2; step > 0; step /= 2)  // number of interior pivots <= v
    if (pivots[interval + step] <= v) interval += step;
  const T low = pivots[interval];
  int offset = 0;
  if (v != low) {
    const double t = slopes[interval] * (static_cast<double>(v) - static_cast<double>(low));
    offset = !(t >= 0.0) ? 1 : (t >= kBucketsPerInterval - 2 ? kBucketsPerInterval - 1 : 1 + static_cast<int>(t));
  }
  return interval * kBucketsPerInterval + offset;
}

// Subroutine 2: assign and count (shared-memory counters, one global atomic per bucket and block).
template <class T>
__global__ __launch_bounds__(kThreads) void assign_buckets(const T* __restrict__ x, std::size_t n, Control<T>* control,
                                                          unsigned short* __restrict__ bucket_ids) {
  __shared__ T pivots[kIntervals + 1];
  __shared__ double slopes[kIntervals];
  __shared__ unsigned int local[kBuckets];
  for (int i = threadIdx.x; i <= kIntervals; i += blockDim.x) pivots[i] = control->pivots[i];
  for (int i = threadIdx.x; i < kIntervals; i += blockDim.x) slopes[i] = control->slopes[i];
  for (int i = threadIdx.x; i < kBuckets; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const int bucket = bucket_of(x[i], pivots, slopes);
    bucket_ids[i] = static_cast<unsigned short>(bucket);
    seed::count_in_shared(local, bucket);
  }
  seed::flush_counts(local, kBuckets, control->counts);
}

// Reduce: copy the elements of active buckets (flags in shared memory) contiguously.
template <class T>
__global__ __launch_bounds__(kThreads) void copy_active(const T* __restrict__ x, const unsigned short* __restrict__ bucket_ids,
                                                       std::size_t n, const unsigned char* __restrict__ active_flags,
                                                       Control<T>* control, T* __restrict__ out) {
  __shared__ unsigned char active[kBuckets];
  for (int i = threadIdx.x; i < kBuckets; i += blockDim.x) active[i] = active_flags[i];
  __syncthreads();
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t rounds = (n + stride - 1) / stride;
  for (std::size_t r = 0; r < rounds; ++r) {
    const std::size_t i = r * stride + blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const bool keep = i < n && active[bucket_ids[i]];
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    if (ballot == 0) continue;
    const unsigned long long at = seed::warp_append(0xffffffffu, ballot, &control->written);
    if (keep) out[at] = x[i];
  }
}

template <class T>
__global__ void gather(const T* __restrict__ sorted, const unsigned long long* __restrict__ positions,
                       std::size_t count, T* __restrict__ out) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < count) out[i] = sorted[positions[i]];
}

template <class T>
class BucketMultiSelect {
 public:
  BucketMultiSelect(const T* values, std::size_t n, Workspace& workspace, cudaStream_t stream)
      : x_(values), n_(n), workspace_(workspace), stream_(stream),
        control_(workspace.device_as<Control<T>>(kMultiControl, 1)),
        host_control_(workspace.host_as<Control<T>>(kMultiControl, 1)) {}

  void run(const std::size_t* ks, std::size_t count, T* out) {
    const unsigned grid = streaming_grid(n_, kThreads, 1, kBlocksPerSm);
    // The whole block is copied back to the host later: define every byte (padding, unused
    // pivots), so that the copy never reads uninitialised memory (compute-sanitizer initcheck).
    CUDA_CHECK(cudaMemsetAsync(control_, 0, sizeof(Control<T>), stream_));
    reset_control<T><<<1, kThreads, 0, stream_>>>(control_);
    CUDA_CHECK_LAUNCH();
    min_max<T><<<grid, kThreads, 0, stream_>>>(x_, n_, control_);
    CUDA_CHECK_LAUNCH();
    fetch_control(offsetof(Control<T>, pivots));
    const T lo = seed::OrderedKey<T>::to(host_control_->min_key);
    if (lo == seed::OrderedKey<T>::to(host_control_->max_key)) {
      std::fill(out, out + count, lo);
      return;
    }
    unsigned short* bucket_ids = workspace_.device_as<unsigned short>(kMultiBucketIds, n_);
    make_intervals<T><<<1, kSampleThreads, 0, stream_>>>(x_, n_, control_);
    CUDA_CHECK_LAUNCH();
    assign_buckets<T><<<grid, kThreads, 0, stream_>>>(x_, n_, control_, bucket_ids);
    CUDA_CHECK_LAUNCH();
    fetch_control(sizeof(Control<T>));

    // Identify: cumulative counts, each rank's bucket, the active buckets.
    const Control<T>& c = *host_control_;
    std::vector<unsigned long long> before(kBuckets + 1, 0);
    for (int b = 0; b < kBuckets; ++b) before[b + 1] = before[b] + c.counts[b];
    unsigned char* active = workspace_.host_as<unsigned char>(kMultiActive, kBuckets);
    std::fill(active, active + kBuckets, 0);
    std::vector<int> bucket_of_rank(count);
    for (std::size_t i = 0; i < count; ++i) {
      const int b = static_cast<int>(std::upper_bound(before.begin(), before.end(), ks[i]) - before.begin()) - 1;
      bucket_of_rank[i] = b;
      if (b % kBucketsPerInterval == 0) out[i] = c.pivots[b / kBucketsPerInterval];  // equality bucket
      else active[b] = 1;
    }
    std::vector<unsigned long long> active_before(kBuckets + 1, 0);
    for (int b = 0; b < kBuckets; ++b) active_before[b + 1] = active_before[b] + (active[b] ? c.counts[b] : 0);
    const std::size_t reduced = active_before[kBuckets];
    if (reduced == 0) return;

    // Reduce (or sort everything when that would not shrink the work), then sort.
    const bool sort_all = static_cast<double>(reduced) > kSortInsteadFraction * static_cast<double>(n_);
    T* sorted = workspace_.device_as<T>(kMultiSorted, sort_all ? n_ : reduced);
    const T* to_sort = x_;
    if (!sort_all) {
      unsigned char* d_active = workspace_.device_as<unsigned char>(kMultiActive, kBuckets);
      CUDA_CHECK(cudaMemcpyAsync(d_active, active, kBuckets, cudaMemcpyHostToDevice, stream_));
      T* compacted = workspace_.device_as<T>(kMultiCompacted, reduced);
      copy_active<T><<<grid, kThreads, 0, stream_>>>(x_, bucket_ids, n_, d_active, control_, compacted);
      CUDA_CHECK_LAUNCH();
      to_sort = compacted;
    }
    const std::size_t sort_n = sort_all ? n_ : reduced;
    sort_values(to_sort, sorted, sort_n, workspace_, kMultiSortTemp, stream_);

    // Read every rank that is not an equality bucket's from the sorted vector. An equality
    // bucket's rank is answered by its pivot and is not in the reduced vector: it reads
    // position 0 (a valid place, result unused) rather than a place past the reduced end.
    unsigned long long* positions = workspace_.host_as<unsigned long long>(kMultiPositions, count);
    for (std::size_t i = 0; i < count; ++i) {
      const int b = bucket_of_rank[i];
      const bool equality_bucket = b % kBucketsPerInterval == 0;
      positions[i] = sort_all ? ks[i] : equality_bucket ? 0 : ks[i] - before[b] + active_before[b];
    }
    auto* d_positions = workspace_.device_as<unsigned long long>(kMultiPositions, count);
    T* d_out = workspace_.device_as<T>(kMultiOut, count);
    T* h_out = workspace_.host_as<T>(kMultiOut, count);
    CUDA_CHECK(cudaMemcpyAsync(d_positions, positions, count * sizeof(unsigned long long), cudaMemcpyHostToDevice, stream_));
    gather<T><<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream_>>>(sorted, d_positions, count, d_out);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (std::size_t i = 0; i < count; ++i)
      if (bucket_of_rank[i] % kBucketsPerInterval != 0) out[i] = h_out[i];
  }

 private:
  void fetch_control(std::size_t bytes) {  // the first `bytes` of the control block
    CUDA_CHECK(cudaMemcpyAsync(host_control_, control_, bytes, cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  const T* x_;
  std::size_t n_;
  Workspace& workspace_;
  cudaStream_t stream_;
  Control<T>* control_;
  Control<T>* host_control_;
};

}  // namespace

template <class T>
void bucket_multi_select(const T* d_values, std::size_t n, const std::size_t* ks, std::size_t count, T* out,
                         Workspace& workspace, cudaStream_t stream) {
  if (count == 0) return;
  BucketMultiSelect<T>(d_values, n, workspace, stream).run(ks, count, out);
}

template void bucket_multi_select<float>(const float*, std::size_t, const std::size_t*, std::size_t, float*,
                                         Workspace&, cudaStream_t);
template void bucket_multi_select<double>(const double*, std::size_t, const std::size_t*, std::size_t,
                                          double*, Workspace&, cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
