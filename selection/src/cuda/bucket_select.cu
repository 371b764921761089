// bucketSelect (Alabi et al.): distributive partitioning into B = 1024 buckets.
//
// Each iteration projects the candidates linearly onto the buckets (in double precision),
// counts them with shared-memory atomics, and keeps the bucket holding rank k ("K-bucket").
// Phase I (current vector longer than 2^21, at most twice) copies the K-bucket into a new
// vector; Phase II rescans the vector with [min, max] narrowed to the K-bucket, everything
// else falling into the dummy bucket.
//
// Exactness, beyond the paper: the narrowed range is the K-bucket's *actual* smallest and
// largest value (a min/max pass over the bucket), not its computed edges, and the projection
// only needs to be monotone in x -- which rounded arithmetic always is -- so candidates are
// exactly {x : lo <= x <= hi} and no rounding can lose the answer. The range is pre-scaled
// by a power of two so subnormal and huge ranges project safely; infinities are counted
// first and never projected. Since lo and hi always fall in different buckets, every
// iteration discards something; when iterations stop halving the candidates (few distinct
// values spread over a wide range, the "bucket killer") the remaining candidates are
// compacted and radix-sorted, so the cost is bounded by a few passes plus one sort.
//
// Heavy tails, beyond the paper: the first iteration projects the sample's order statistics
// around rank k (± 8 binomial sigmas) onto the buckets instead of [min, max], values outside
// them going to the first and last bucket. With [min, max], a Cauchy sample's extremes squeeze
// the bulk into a few buckets and the iterations barely narrow (0.35 x sort&choose on the H200).
// The projection stays monotone, so exactness is unchanged.
//
// Extra memory: up to two copies of n values (Phase I / fallback) plus CUB sort scratch.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/functional>

#include <cmath>
#include <limits>

#include "algorithms.cuh"
#include "seed_common.cuh"
#include "sort_values.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

constexpr int kBuckets = 1024;                                      // B (Alabi et al.)
constexpr std::size_t kPhaseOneThreshold = std::size_t{1} << 21;   // copy while n > 2^21
constexpr int kMaxPhaseOneCopies = 2;                               // "never more than twice"
constexpr int kMaxStalledIterations = 3;     // iterations that fail to halve, then sort
constexpr int kMaxIterations = 40;           // > ceil(2100 bits of double range / 10 bits)
constexpr int kThreads = 512;                // threads per block of the streaming kernels
constexpr int kUnroll = 4;                   // loads in flight per thread
constexpr int kBlocksPerSm = 4;              // resident blocks of kThreads per SM
constexpr int kSampleThreads = 256;          // the first iteration's projection range:
constexpr int kSampleItems = 8;              // a sample of 2048 values
constexpr int kSampleSize = kSampleThreads * kSampleItems;
constexpr double kSampleSigmas = 8;

template <class T>
struct State {
  using Key = typename seed::OrderedKey<T>::type;
  Key lo_key;                    // min / max (as ordered keys) of what the last pass kept
  Key hi_key;
  unsigned long long neg_inf;    // first pass only: infinities are counted, never projected
  unsigned long long pos_inf;
  unsigned long long rank;       // rank of the answer inside the K-bucket
  unsigned long long count;      // elements in the K-bucket
  unsigned long long written;    // Phase I / fallback copy cursor
  unsigned int bucket;           // K
  T sample_lo, sample_hi;        // sample order statistics around rank k (first projection)
};

// x -> bucket, monotone non-decreasing in x for any rounding:
// t = (x*s1*s2 - lo_scaled) * scale, with s1*s2 a power of two bringing max(|lo|,|hi|) to [1,2).
struct Projection {
  double s1, s2, lo_scaled, scale;
  bool valid;
};

Projection make_projection(double lo, double hi) {
  const double magnitude = std::fmax(std::fabs(lo), std::fabs(hi));
  const int exponent = -std::ilogb(magnitude);
  const int e1 = exponent > 1000 ? 1000 : (exponent < -1000 ? -1000 : exponent);
  Projection p{std::ldexp(1.0, e1), std::ldexp(1.0, exponent - e1), 0.0, 0.0, false};
  p.lo_scaled = lo * p.s1 * p.s2;
  const double range = hi * p.s1 * p.s2 - p.lo_scaled;
  p.scale = kBuckets / range;
  p.valid = range > 0 && std::isfinite(p.scale);
  return p;
}

__device__ __forceinline__ int project(double x, const Projection& p) {
  const double t = (x * p.s1 * p.s2 - p.lo_scaled) * p.scale;
  if (!(t >= 0.0)) return 0;
  if (t >= kBuckets - 1) return kBuckets - 1;
  return static_cast<int>(t);
}

template <class T>
__global__ __launch_bounds__(kBuckets) void reset_state(State<T>* state, unsigned long long* counts) {
  using Key = typename State<T>::Key;
  for (int i = threadIdx.x; i < kBuckets; i += blockDim.x) counts[i] = 0;
  if (threadIdx.x == 0) {
    *state = State<T>{};
    state->lo_key = ~Key{0};
    state->hi_key = Key{0};
  }
}

// First pass: min and max of the finite values, and how many -inf / +inf there are.
template <class T>
__global__ __launch_bounds__(kThreads) void first_min_max(const T* __restrict__ x, std::size_t n, State<T>* state) {
  using Key = typename State<T>::Key;
  using Ops = seed::OrderedKey<T>;
  Key lo = ~Key{0}, hi = 0;
  unsigned long long neg = 0, pos = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const T v = x[i];
    if (isinf(v)) {
      (v < 0 ? neg : pos) += 1;
    } else {
      const Key key = Ops::from(v);
      lo = key < lo ? key : lo;
      hi = key > hi ? key : hi;
    }
  }
  using Reduce = cub::BlockReduce<Key, kThreads>;
  using Sum = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ union { typename Reduce::TempStorage keys; typename Sum::TempStorage sums; } temp;
  const Key block_lo = Reduce(temp.keys).Reduce(lo, ::cuda::minimum<>{});
  __syncthreads();
  const Key block_hi = Reduce(temp.keys).Reduce(hi, ::cuda::maximum<>{});
  __syncthreads();
  const unsigned long long block_neg = Sum(temp.sums).Sum(neg);
  __syncthreads();
  const unsigned long long block_pos = Sum(temp.sums).Sum(pos);
  if (threadIdx.x == 0) {
    atomicMin(&state->lo_key, block_lo);
    atomicMax(&state->hi_key, block_hi);
    if (block_neg) atomicAdd(&state->neg_inf, block_neg);
    if (block_pos) atomicAdd(&state->pos_inf, block_pos);
  }
}

// The first iteration's projection range: sample order statistics around rank k.
template <class T>
__global__ __launch_bounds__(kSampleThreads) void sample_range(const T* __restrict__ x, std::size_t n, std::size_t k,
                                                               State<T>* state) {
  using Sort = cub::BlockRadixSort<T, kSampleThreads, kSampleItems>;
  __shared__ typename Sort::TempStorage temp;
  T items[kSampleItems];
#pragma unroll
  for (int j = 0; j < kSampleItems; ++j) items[j] = x[seed::mix(threadIdx.x * std::uint64_t{kSampleItems} + j + 1) % n];
  Sort(temp).Sort(items);  // blocked: thread t holds sample ranks t*items .. +items-1
  const double p = (static_cast<double>(k) + 0.5) / static_cast<double>(n);
  const double centre = p * kSampleSize - 0.5, spread = kSampleSigmas * sqrt(kSampleSize * p * (1 - p)) + 8;
  const int lo_rank = static_cast<int>(fmax(0.0, floor(centre - spread)));
  const int hi_rank = static_cast<int>(fmin(kSampleSize - 1.0, ceil(centre + spread)));
#pragma unroll
  for (int j = 0; j < kSampleItems; ++j) {
    const int r = static_cast<int>(threadIdx.x) * kSampleItems + j;
    if (r == lo_rank) state->sample_lo = items[j];
    if (r == hi_rank) state->sample_hi = items[j];
  }
}

// Steps 1-2: assign every candidate (lo <= x <= hi) to a bucket and count; others are dummies.
template <class T>
__global__ __launch_bounds__(kThreads) void count_buckets(const T* __restrict__ x, std::size_t n, T lo, T hi, Projection p,
                              unsigned long long* counts) {
  __shared__ unsigned int local[kBuckets];
  for (int i = threadIdx.x; i < kBuckets; i += blockDim.x) local[i] = 0;
  __syncthreads();
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    T v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = x[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      seed::count_in_shared(local, (v[u] >= lo && v[u] <= hi) ? project(static_cast<double>(v[u]), p) : -1);
  }
  for (; i < n; i += stride) {
    const T v = x[i];
    seed::count_in_shared(local, (v >= lo && v <= hi) ? project(static_cast<double>(v), p) : -1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBuckets; b += blockDim.x)
    if (local[b]) atomicAdd(&counts[b], static_cast<unsigned long long>(local[b]));
}

// Step 3: cumulative counts, the K-bucket, the rank inside it. Clears counts and the
// min/max accumulators for the next pass. One block of kBuckets threads.
template <class T>
__global__ __launch_bounds__(kBuckets) void find_k_bucket(unsigned long long* counts, unsigned long long rank, State<T>* state) {
  using Key = typename State<T>::Key;
  using Scan = cub::BlockScan<unsigned long long, kBuckets>;
  __shared__ typename Scan::TempStorage temp;
  const unsigned long long count = counts[threadIdx.x];
  unsigned long long before = 0;
  Scan(temp).ExclusiveSum(count, before);
  counts[threadIdx.x] = 0;
  if (before <= rank && rank < before + count) {
    state->bucket = threadIdx.x;
    state->rank = rank - before;
    state->count = count;
    state->lo_key = ~Key{0};
    state->hi_key = Key{0};
    state->written = 0;
  }
}

// Step 4: exact min and max of the K-bucket; in Phase I (out != nullptr) also copy it out.
// With match_bucket false, every candidate in [lo, hi] is kept (fallback compaction).
template <class T>
__global__ __launch_bounds__(kThreads) void gather_k_bucket(const T* __restrict__ x, std::size_t n, T lo, T hi, Projection p,
                                bool match_bucket, State<T>* state, T* __restrict__ out) {
  using Key = typename State<T>::Key;
  using Ops = seed::OrderedKey<T>;
  const int k_bucket = static_cast<int>(state->bucket);
  Key kmin = ~Key{0}, kmax = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  const std::size_t rounds = (n + stride - 1) / stride;  // uniform trip count keeps warps whole
  for (std::size_t r = 0; r < rounds; ++r) {
    const std::size_t i = r * stride + blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    bool keep = false;
    T v{};
    if (i < n) {
      v = x[i];
      keep = v >= lo && v <= hi && (!match_bucket || project(static_cast<double>(v), p) == k_bucket);
    }
    if (keep) {
      const Key key = Ops::from(v);
      kmin = key < kmin ? key : kmin;
      kmax = key > kmax ? key : kmax;
    }
    if (out != nullptr) {  // warp-aggregated cursor: one global atomic per warp
      const unsigned ballot = __ballot_sync(0xffffffffu, keep);
      if (ballot) {
        const unsigned long long at = seed::warp_append(0xffffffffu, ballot, &state->written);
        if (keep) out[at] = v;
      }
    }
  }
  using Reduce = cub::BlockReduce<Key, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const Key block_min = Reduce(temp).Reduce(kmin, ::cuda::minimum<>{});
  __syncthreads();
  const Key block_max = Reduce(temp).Reduce(kmax, ::cuda::maximum<>{});
  if (threadIdx.x == 0 && block_min <= block_max) {
    atomicMin(&state->lo_key, block_min);
    atomicMax(&state->hi_key, block_max);
  }
}

template <class T>
class BucketSelect {
 public:
  BucketSelect(const T* values, std::size_t n, Workspace& workspace, cudaStream_t stream)
      : input_(values), n_(n), workspace_(workspace), stream_(stream) {
    constexpr std::size_t control_bytes = sizeof(State<T>) + kBuckets * sizeof(unsigned long long);
    char* control = static_cast<char*>(workspace.device(kBucketControl, seed::align_up(control_bytes)));
    state_ = reinterpret_cast<State<T>*>(control);
    counts_ = reinterpret_cast<unsigned long long*>(control + seed::align_up(sizeof(State<T>), 16));
    host_state_ = static_cast<State<T>*>(workspace.host(kBucketControl, sizeof(State<T>)));
  }

  T run(std::size_t k) {
    reset_state<T><<<1, kBuckets, 0, stream_>>>(state_, counts_);
    CUDA_CHECK_LAUNCH();
    first_min_max<T><<<streaming_grid(n_, kThreads, 1, kBlocksPerSm), kThreads, 0, stream_>>>(input_, n_, state_);
    CUDA_CHECK_LAUNCH();
    sample_range<T><<<1, kSampleThreads, 0, stream_>>>(input_, n_, k, state_);
    CUDA_CHECK_LAUNCH();
    const State<T> first = fetch_state();
    constexpr T inf = std::numeric_limits<T>::infinity();
    if (k < first.neg_inf) return -inf;
    if (k >= n_ - first.pos_inf) return inf;

    unsigned long long rank = k - first.neg_inf;
    std::size_t candidates = n_ - first.neg_inf - first.pos_inf;
    T lo = Ops::to(first.lo_key), hi = Ops::to(first.hi_key);
    const T* current = input_;
    std::size_t current_n = n_;
    int copies = 0, stalls = 0;
    for (int iteration = 0;; ++iteration) {
      if (!(lo < hi) || rank == 0) return lo;  // also covers a single candidate
      if (rank + 1 == candidates) return hi;
      const Projection p = iteration == 0 ? first_projection(first, lo, hi)
                                          : make_projection(static_cast<double>(lo), static_cast<double>(hi));
      if (!p.valid || stalls >= kMaxStalledIterations || iteration >= kMaxIterations)
        return sort_candidates(current, current_n, lo, hi, candidates, rank);

      const unsigned grid = streaming_grid(current_n, kThreads, 1, kBlocksPerSm);
      count_buckets<T><<<grid, kThreads, 0, stream_>>>(current, current_n, lo, hi, p, counts_);
      CUDA_CHECK_LAUNCH();
      find_k_bucket<T><<<1, kBuckets, 0, stream_>>>(counts_, rank, state_);
      CUDA_CHECK_LAUNCH();
      const bool copy = current_n > kPhaseOneThreshold && copies < kMaxPhaseOneCopies;
      T* out = copy ? buffer(copies % 2) : nullptr;
      gather_k_bucket<T><<<grid, kThreads, 0, stream_>>>(current, current_n, lo, hi, p, true, state_, out);
      CUDA_CHECK_LAUNCH();
      const State<T> s = fetch_state();

      if (s.count > candidates / 2) ++stalls;
      candidates = s.count;
      rank = s.rank;
      lo = Ops::to(s.lo_key);
      hi = Ops::to(s.hi_key);
      if (copy) {  // Phase I: continue on the copied K-bucket
        current = out;
        current_n = s.count;
        ++copies;
      }
    }
  }

 private:
  using Ops = seed::OrderedKey<T>;

  // The sample's range when it is finite and non-empty (inside [lo, hi] then), else [lo, hi].
  static Projection first_projection(const State<T>& first, T lo, T hi) {
    const double a = first.sample_lo, b = first.sample_hi;
    if (std::isfinite(a) && std::isfinite(b) && a < b) {
      const Projection p = make_projection(std::fmax(a, static_cast<double>(lo)), std::fmin(b, static_cast<double>(hi)));
      if (p.valid) return p;
    }
    return make_projection(static_cast<double>(lo), static_cast<double>(hi));
  }

  State<T> fetch_state() {
    CUDA_CHECK(cudaMemcpyAsync(host_state_, state_, sizeof(State<T>), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return *host_state_;
  }

  // Two scratch vectors of n values, allocated on first use.
  T* buffer(int which) { return workspace_.device_as<T>(which == 0 ? kBucketBufferA : kBucketBufferB, n_); }

  // Fallback: compact the candidates [lo, hi] and radix-sort them; exact, bounded cost.
  T sort_candidates(const T* current, std::size_t current_n, T lo, T hi, std::size_t candidates,
                    unsigned long long rank) {
    T* a = buffer(0);
    T* b = buffer(1);
    T* compacted = current == a ? b : a;
    T* sorted = current == a ? a : b;  // `current` is no longer needed once compacted
    reset_state<T><<<1, kBuckets, 0, stream_>>>(state_, counts_);
    CUDA_CHECK_LAUNCH();
    const Projection unused{1.0, 1.0, 0.0, 0.0, true};
    gather_k_bucket<T><<<streaming_grid(current_n, kThreads, 1, kBlocksPerSm), kThreads, 0, stream_>>>(
        current, current_n, lo, hi, unused, false, state_, compacted);
    CUDA_CHECK_LAUNCH();
    sort_values(compacted, sorted, candidates, workspace_, kBucketSortTemp, stream_);
    T* host_value = workspace_.host_as<T>(kBucketHostValue, 1);
    CUDA_CHECK(cudaMemcpyAsync(host_value, sorted + rank, sizeof(T), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return *host_value;
  }

  const T* input_;
  std::size_t n_;
  Workspace& workspace_;
  cudaStream_t stream_;
  State<T>* state_ = nullptr;
  unsigned long long* counts_ = nullptr;
  State<T>* host_state_ = nullptr;
};

}  // namespace

template <class T>
T bucket_select(const T* d_values, std::size_t n, std::size_t k, Workspace& workspace, cudaStream_t stream) {
  return BucketSelect<T>(d_values, n, workspace, stream).run(k);
}

template float bucket_select<float>(const float*, std::size_t, std::size_t, Workspace&, cudaStream_t);
template double bucket_select<double>(const double*, std::size_t, std::size_t, Workspace&, cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
