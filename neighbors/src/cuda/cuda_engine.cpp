// CUDA kNN engine: exact k nearest neighbours by k-th order statistic thresholding
// (Beliakov's kNN scheme, Floyd-Rivest in kNN form), per tile of queries:
//   1. direct distances of the tile to a stratified random sample of s training rows; the k-th
//      smallest per query (batched selection, the selection module's inner loop) is a valid
//      threshold T_q: at least k training rows have distance <= T_q (the sample rows that do);
//   2. one fused pass over all training rows appends the rows with distance <= T_q to the
//      query's candidate list (about k n / s of them; nothing m x n is ever written);
//   3. the k-th smallest candidate distance tau_q (batched selection again), the candidates with
//      distance <= tau_q kept, and only when needed (ordered output, or ties at tau_q) those
//      ordered by (distance, row); the first k are the answer.
// Every distance is THE direct distance (kernels.hpp), computed identically in steps 1 and 2,
// so the result is exact in double and equal to the CPU engine's, in float exact for float data
// (see docs/KNN.md for what that means against double). A query whose candidates overflow the
// capacity is redone with the exact capacity its count asks for.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <future>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "cuda_engine.hpp"
#include "filter_choice.hpp"
#include "gemm_filter.hpp"
#include "../host_parallel.hpp"
#include "../list_allocator.hpp"
#include "kernels.hpp"
#include "robustfit/selection/cuda/errors.hpp"
#include "robustfit/selection/cuda/select.hpp"
#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::neighbors::detail {
namespace {

using cuda::Row;
using selection::cuda::Workspace;

// Queries per tile: up to 8192, and up to kTilePairs / n (at most 32768) for small training
// sets, so that a 2^14 x 2^14 call is one tile (one candidate-count sync, one set of launches)
// where the per-call fixed costs are a third of the time.
constexpr std::size_t kMaxQueryTile = 8192;
constexpr std::size_t kMaxQueryTileSmallRows = 32768;
constexpr std::size_t kTilePairs = std::size_t{1} << 31;
constexpr std::size_t kMinCandidates = 2048;  // expected first-pass survivors per query, at least
constexpr std::size_t kSurvivorsPerNeighbor = 8;
// The GEMM path re-checks every candidate with a gathered direct distance, while a larger
// sample costs only GEMM work: fewer candidates per query, a larger sample.
constexpr std::size_t kMinCandidatesGemm = 512;
constexpr std::size_t kSurvivorsPerNeighborGemm = 4;
constexpr std::size_t kLargeKSampleRank = 64;  // large k: expected sample rows among the need nearest
constexpr double kLargeKSigmas = 3;
constexpr std::size_t kMaxBudgetBytes = std::size_t{96} << 30;
constexpr std::size_t kGemmChunkRows = 32768;  // training rows per dot-product block (GEMM path)
constexpr std::size_t kMaxTf32Features = 65536;  // the TF32 bound's d u terms stay small

enum Slot : std::size_t {
  kQueries, kSelf, kSampleBlock, kThresholds, kCounts, kCandRows, kCandDistances, kTau,
  kKeptRows, kKeptDistances, kKept, kSortFirst,  // kSortFirst .. +3: sort scratch
  kSampleIds = kSortFirst + 4, kSampleRows, kOutRows, kOutDistances,
  kQueryNorms, kSampleNorms, kDots, kOutIndex,
};
enum HostSlot : std::size_t { kHostCounts, kHostKept, kHostQueries, kHostSelf, kHostDest };

void check_cublas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_ALLOC_FAILED)
    throw selection::cuda::OutOfMemory(std::string("GPU out of memory in the kNN engine: ") + what);
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("CUDA kNN engine: ") + what + " failed (cuBLAS status " +
                             std::to_string(int(status)) + ")");
}

// C (rows x cols, column-major, ldc = rows) = A^T B for row-major A (rows x d) and B (cols x d):
// C[c * rows + r] = a_r . b_c.
void gemm_dots(cublasHandle_t handle, const float* a, std::size_t rows, const float* b,
               std::size_t cols, std::size_t d, float* c) {
  const float one = 1, zero = 0;
  check_cublas(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(rows), int(cols), int(d), &one, a,
                           int(d), b, int(d), &zero, c, int(rows)),
               "cublasSgemm");
}
// The same on TF32 tensor cores (float accumulation), for the widened bound.
void gemm_dots_tf32(cublasHandle_t handle, const float* a, std::size_t rows, const float* b,
                    std::size_t cols, std::size_t d, float* c) {
  const float one = 1, zero = 0;
  check_cublas(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(rows), int(cols), int(d), &one, a,
                            CUDA_R_32F, int(d), b, CUDA_R_32F, int(d), &zero, c, CUDA_R_32F,
                            int(rows), CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx (TF32)");
}
void gemm_dots_tf32(cublasHandle_t, const double*, std::size_t, const double*, std::size_t,
                    std::size_t, double*) {
  throw std::logic_error("CUDA kNN engine: TF32 dot products asked for in double");
}

// True when no value is a nonzero below the smallest normal float: TF32 tensor cores may flush
// such inputs to zero, an error no relative bound covers (the TF32 path is then not taken).
template <class T>
bool no_subnormals(const T* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i)
    if (values[i] != T(0) && std::abs(values[i]) < T(std::numeric_limits<float>::min())) return false;
  return true;
}

void gemm_dots(cublasHandle_t handle, const double* a, std::size_t rows, const double* b,
               std::size_t cols, std::size_t d, double* c) {
  const double one = 1, zero = 0;
  check_cublas(cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(rows), int(cols), int(d), &one, a,
                           int(d), b, int(d), &zero, c, int(rows)),
               "cublasDgemm");
}

// The rows `indices` of `queries` as T, row after row, into `out` (from several threads for
// large tiles: at d = 128 the conversion was a third of a 2^14-query call). With
// check_subnormals: returns whether no value is a nonzero subnormal float (no_subnormals).
template <class T>
bool gather_queries(const RowMatrix& queries, const std::vector<std::size_t>& indices, std::size_t d, T* out,
                    bool check_subnormals) {
  constexpr std::size_t kValuesPerWorker = std::size_t{1} << 17;
  const std::size_t values = indices.size() * d;
  const auto workers = static_cast<unsigned>(std::min<std::size_t>(host_workers(), values / kValuesPerWorker + 1));
  std::atomic<bool> normal{true};
  in_parts(indices.size(), workers, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const double* row = queries.data() + indices[i] * d;
      std::copy(row, row + d, out + i * d);
    }
    if (check_subnormals && !no_subnormals(out + begin * d, (end - begin) * d)) normal = false;
  });
  return normal;
}

class Events {
 public:
  Events() {
    for (auto& e : events_) RF_KNN_CUDA(cudaEventCreate(&e));
  }
  ~Events() {
    for (auto e : events_) cudaEventDestroy(e);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  void record(int i, cudaStream_t stream) { RF_KNN_CUDA(cudaEventRecord(events_[i], stream)); }
  void synchronize(int i) { RF_KNN_CUDA(cudaEventSynchronize(events_[i])); }
  double seconds(int from, int to) const {
    float ms = 0;
    RF_KNN_CUDA(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return ms / 1e3;
  }

 private:
  cudaEvent_t events_[6]{};
};

// A pinned host buffer (the staging of the result lists), grown on demand.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { cudaFreeHost(ptr_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get(std::size_t bytes) {
    if (bytes > bytes_) {
      cudaFreeHost(ptr_);
      ptr_ = nullptr;
      bytes_ = 0;
      RF_KNN_CUDA(cudaMallocHost(&ptr_, bytes));
      bytes_ = bytes;
    }
    return ptr_;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

struct TileJob {
  std::vector<std::size_t> queries;  // indices into the caller's query matrix
};

// Sizes an output vector to `count` entries without writing them (ListVector), then faults its
// pages in from `workers` threads while the GPU runs the first tile: the kernel's zeroing of a GB
// of fresh pages is the costly part of the output, and the copies of the tiles then write into
// memory that is already mapped (huge pages: list_allocator.hpp).
template <class V>
void size_output(ListVector<V>& out, std::size_t count, unsigned workers) {
  out.resize(count);
  const std::size_t bytes = count * sizeof(V);
  if (bytes >= kHugeListBytes) touch_pages(out.data(), bytes, workers);
}

// Moves each tile's lists into the result vectors while the GPU works on the next tile: the
// lists are copied on a copy stream into one of two pinned staging buffers, then host threads
// (host_workers() per vector, rows and distances at once) copy the queries that are done into the
// vectors. Large vectors are faulted in (size_output) by as many threads while tile 0 runs;
// small ones are sized here (an allocation, nothing written).
// Every query is done in exactly one tile, so concurrent copies never write the same entries.
class ListWriter {
 public:
  struct Staging {
    PinnedBuffer rows, distances;
    cudaEvent_t copied = nullptr;  // the staging copy has landed
    std::future<void> rows_job, distances_job;
  };

  ListWriter(NeighborLists& out, Staging (&staging)[2], cudaStream_t copy_stream)
      : out_(out), staging_(staging), copy_stream_(copy_stream), workers_(host_workers()) {
    const std::size_t count = out.queries * out.k;
    const unsigned workers = workers_;
    if (count * sizeof(double) < kHugeListBytes) {
      out.rows.resize(count);
      out.distances.resize(count);
      std::promise<void> ready;
      ready.set_value();
      rows_sized_ = ready.get_future().share();
      distances_sized_ = rows_sized_;
      return;
    }
    rows_sized_ = std::async(std::launch::async, [&out, count, workers] {
                    size_output(out.rows, count, workers);
                  }).share();
    distances_sized_ = std::async(std::launch::async, [&out, count, workers] {
                         size_output(out.distances, count, workers);
                       }).share();
  }
  ~ListWriter() {
    for (auto& st : staging_) {
      if (st.rows_job.valid()) st.rows_job.wait();
      if (st.distances_job.valid()) st.distances_job.wait();
    }
    if (rows_sized_.valid()) rows_sized_.wait();
    if (distances_sized_.valid()) distances_sized_.wait();
  }
  ListWriter(const ListWriter&) = delete;
  ListWriter& operator=(const ListWriter&) = delete;

  // After `listed` (recorded on the compute stream once d_rows/d_distances hold the tile's
  // mt x k lists): stage them and copy the done queries (indices[i] for done[i]) out.
  // Returns the event the compute stream must wait for before it overwrites d_rows/d_distances.
  cudaEvent_t stage(cudaEvent_t listed, const std::int64_t* d_rows, const double* d_distances,
                    std::vector<std::size_t> indices, std::vector<char> done) {
    Staging& st = staging_[next_];
    next_ ^= 1;
    if (st.rows_job.valid()) st.rows_job.get();  // the buffer's previous tile is out
    if (st.distances_job.valid()) st.distances_job.get();
    const std::size_t k = out_.k, entries = indices.size() * k;
    auto* rows = static_cast<std::int64_t*>(st.rows.get(entries * sizeof(std::int64_t)));
    auto* distances = static_cast<double*>(st.distances.get(entries * sizeof(double)));
    RF_KNN_CUDA(cudaStreamWaitEvent(copy_stream_, listed, 0));
    RF_KNN_CUDA(cudaMemcpyAsync(rows, d_rows, entries * sizeof(std::int64_t),
                                cudaMemcpyDeviceToHost, copy_stream_));
    RF_KNN_CUDA(cudaMemcpyAsync(distances, d_distances, entries * sizeof(double),
                                cudaMemcpyDeviceToHost, copy_stream_));
    RF_KNN_CUDA(cudaEventRecord(st.copied, copy_stream_));
    auto shared_indices = std::make_shared<const std::vector<std::size_t>>(std::move(indices));
    auto shared_done = std::make_shared<const std::vector<char>>(std::move(done));
    const cudaEvent_t copied = st.copied;
    const unsigned workers = entries * sizeof(double) >= (std::size_t{8} << 20) ? workers_ : 1u;
    // Each job waits on its own copy of the shared future (one object must not be shared).
    st.rows_job = std::async(std::launch::async,
                             [=, sized = rows_sized_, &out = out_.rows] {
                               sized.get();
                               copy_done(copied, rows, out.data(), *shared_indices, *shared_done, k,
                                         workers);
                             });
    st.distances_job = std::async(std::launch::async,
                                  [=, sized = distances_sized_, &out = out_.distances] {
                                    sized.get();
                                    copy_done(copied, distances, out.data(), *shared_indices,
                                              *shared_done, k, workers);
                                  });
    return copied;
  }

  // Waits for every copy; rethrows a failed one.
  void finish() {
    for (auto& st : staging_) {
      if (st.rows_job.valid()) st.rows_job.get();
      if (st.distances_job.valid()) st.distances_job.get();
    }
    rows_sized_.get();
    distances_sized_.get();
  }

 private:
  template <class V>
  static void copy_done(cudaEvent_t copied, const V* from, V* to,
                        const std::vector<std::size_t>& indices, const std::vector<char>& done,
                        std::size_t k, unsigned workers) {
    RF_KNN_CUDA(cudaEventSynchronize(copied));
    in_parts(indices.size(), workers, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end;) {
        if (!done[i]) {
          ++i;
          continue;
        }
        std::size_t run = 1;  // consecutive done queries with consecutive indices: one memcpy
        while (i + run < end && done[i + run] && indices[i + run] == indices[i] + run) ++run;
        std::memcpy(to + indices[i] * k, from + i * k, run * k * sizeof(V));
        i += run;
      }
    });
  }

  NeighborLists& out_;
  Staging (&staging_)[2];
  cudaStream_t copy_stream_;
  std::shared_future<void> rows_sized_, distances_sized_;
  unsigned workers_;  // host threads per vector
  int next_ = 0;
};

template <class T>
class CudaEngineImpl final : public CudaKnnEngine {
 public:
  CudaEngineImpl(const RowMatrix& train, Metric metric, const CudaKnnTuning& tuning)
      : n_(static_cast<std::size_t>(train.rows())),
        d_(static_cast<std::size_t>(train.cols())),
        metric_(metric == Metric::euclidean ? cuda::Distance::euclidean : cuda::Distance::manhattan),
        tuning_(tuning) {
    if (n_ == 0 || d_ == 0) throw std::invalid_argument("train: the training matrix is empty");
    if (n_ >= std::size_t(cuda::kNoRow))
      throw std::invalid_argument("train: the CUDA kNN engine takes fewer than 2^32 - 1 rows, got " +
                                  std::to_string(n_));
    RF_KNN_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    RF_KNN_CUDA(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
    RF_KNN_CUDA(cudaEventCreateWithFlags(&listed_, cudaEventDisableTiming));
    for (auto& st : staging_) RF_KNN_CUDA(cudaEventCreateWithFlags(&st.copied, cudaEventDisableTiming));
    std::vector<T> host(train.data(), train.data() + n_ * d_);
    train_tf32_ok_ = sizeof(T) == sizeof(float) && d_ <= kMaxTf32Features &&
                     no_subnormals(host.data(), host.size());
    RF_KNN_CUDA(cudaMalloc(reinterpret_cast<void**>(&train_), host.size() * sizeof(T)));
    // On the engine's own stream, then waited for: a plain cudaMemcpy runs on the legacy default
    // stream, which a non-blocking stream does not wait for, and may return before the DMA from
    // its staging buffer lands, so the first sample gather could read stale device memory.
    RF_KNN_CUDA(cudaMemcpyAsync(train_, host.data(), host.size() * sizeof(T),
                                cudaMemcpyHostToDevice, stream_));
    RF_KNN_CUDA(cudaStreamSynchronize(stream_));
    if (tuning_.budget_bytes != 0) {
      budget_ = tuning_.budget_bytes;
    } else {
      std::size_t free_bytes = 0, total_bytes = 0;
      RF_KNN_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      budget_ = std::min(free_bytes / 10 * 7, kMaxBudgetBytes);
    }
  }
  ~CudaEngineImpl() override {
    if (cublas_) cublasDestroy(cublas_);
    if (cublas_tf32_) cublasDestroy(cublas_tf32_);
    cudaFree(train_norms_);
    cudaFree(train_roots_);
    cudaFree(train_);
    cudaFree(device_rows_);
    cudaFree(device_distances_);
    for (auto& st : staging_) cudaEventDestroy(st.copied);
    cudaEventDestroy(listed_);
    cudaStreamDestroy(copy_stream_);
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda"; }
  CudaKnnTimes times() const override { return times_; }
  void reset_times() override { times_ = {}; }

  KnnFilter filter_for(std::size_t need, std::size_t queries) const override {
    if (tuning_.filter == KnnFilter::gemm && metric_ != cuda::Distance::euclidean)
      throw std::invalid_argument("filter: the GEMM-form filter is euclidean only");
    if (tuning_.filter != KnnFilter::automatic) return tuning_.filter;
    cuda::FilterShape shape;
    shape.euclidean = metric_ == cuda::Distance::euclidean;
    shape.single = sizeof(T) == sizeof(float);
    shape.queries = queries;
    shape.rows = n_;
    shape.features = d_;
    shape.need = need;
    return cuda::prefer_gemm_filter(shape) ? KnnFilter::gemm : KnnFilter::direct;
  }

  NeighborLists download_device_lists() override {
    NeighborLists out;
    out.queries = device_queries_;
    out.k = device_k_;
    out.rows.resize(out.queries * out.k);
    out.distances.resize(out.queries * out.k);
    if (!out.rows.empty()) {
      RF_KNN_CUDA(cudaMemcpyAsync(out.rows.data(), device_rows_, out.rows.size() * sizeof(std::int64_t),
                                  cudaMemcpyDeviceToHost, stream_));
      RF_KNN_CUDA(cudaMemcpyAsync(out.distances.data(), device_distances_,
                                  out.distances.size() * sizeof(double), cudaMemcpyDeviceToHost,
                                  stream_));
      RF_KNN_CUDA(cudaStreamSynchronize(stream_));
    }
    return out;
  }

  NeighborLists nearest(const RowMatrix& queries, std::size_t k, bool ordered,
                        std::optional<std::size_t> exclude_self_from) override {
    const std::size_t m = static_cast<std::size_t>(queries.rows());
    if (static_cast<std::size_t>(queries.cols()) != d_)
      throw std::invalid_argument("queries: " + std::to_string(queries.cols()) +
                                  " columns, the training matrix has " + std::to_string(d_));
    const std::size_t usable = exclude_self_from ? n_ - 1 : n_;
    if (k == 0 || k > usable)
      throw std::invalid_argument("k: must be between 1 and " + std::to_string(usable) +
                                  (exclude_self_from ? " (n - 1, leave-one-out)" : " (n)") +
                                  ", got " + std::to_string(k));
    if (exclude_self_from && *exclude_self_from + m > n_)
      throw std::invalid_argument("exclude_self_from: query rows run past the training rows");
    NeighborLists out;
    out.queries = m;
    out.k = k;
    const bool gemm = filter_for(k + (exclude_self_from ? 1 : 0), m) == KnnFilter::gemm;
    gemm_now_ = gemm;
    if (gemm) prepare_gemm();
    if (m == 0) {
      if (tuning_.lists_on_device) prepare_device_lists(0, k);
      return out;
    }
    std::optional<ListWriter> writer;  // after `out`: destroyed (its copies waited for) first
    if (tuning_.lists_on_device) {
      prepare_device_lists(m, k);
    } else {
      writer.emplace(out, staging_, copy_stream_);
    }

    const std::size_t need = k + (exclude_self_from ? 1 : 0);  // sample rows below the threshold
    const Pass first = first_pass(need);
    prepare_sample(first.sample);
    std::vector<Pass> passes{first};
    passes.back().queries.resize(m);
    for (std::size_t i = 0; i < m; ++i) passes.back().queries[i] = i;
    while (!passes.empty()) {
      Pass pass = std::move(passes.back());
      passes.pop_back();
      TileOutcome outcome;
      const std::vector<std::size_t>& pending = pass.queries;
      for (std::size_t begin = 0; begin < pending.size();) {
        const std::size_t tile = query_tile(pass, k, pending.size() - begin);
        const std::size_t end = std::min(pending.size(), begin + tile);
        try {
          run_tile(queries, {pending.data() + begin, pending.data() + end}, k, ordered,
                   exclude_self_from, pass, gemm, writer ? &*writer : nullptr, outcome);
        } catch (const selection::cuda::OutOfMemory&) {
          // Free what the tile held and try a smaller tile; give up at one query.
          RF_KNN_CUDA(cudaStreamSynchronize(copy_stream_));  // staging copies read the tile's lists
          RF_KNN_CUDA(cudaStreamSynchronize(stream_));       // uploads read pinned workspace buffers
          workspace_.release();
          selection_workspace_.release();
          sample_size_ = 0;
          if (tile == 1) throw;
          budget_ = std::max<std::size_t>(budget_ / 2, 1);
          prepare_sample(pass.sample);
          continue;
        }
        begin = end;
      }
      times_.overflow_queries += outcome.overflowed.size() + outcome.short_of_k.size();
      if (!outcome.overflowed.empty())  // the same threshold, the capacity the counts ask for
        passes.push_back({std::move(outcome.overflowed), pass.sample, pass.rank,
                          std::clamp(outcome.largest_count, k, n_)});
      if (!outcome.short_of_k.empty()) {
        // The sample rank was below the valid one (large k): redo with a threshold that is
        // valid by construction, the sample's need-th (at least need sample rows, so k
        // training rows other than the query's own, lie within it), or every row.
        if (pass.rank == kEveryRow || pass.rank + 1 >= need)
          throw std::logic_error("CUDA kNN engine: a query has fewer candidates than k under a "
                                 "valid threshold");
        Pass redo{std::move(outcome.short_of_k), pass.sample, kEveryRow, n_};
        if (pass.sample >= need) {
          redo.rank = need - 1;
          redo.capacity = std::clamp(2 * expected_candidates(need, pass.sample), k, n_);
        }
        passes.push_back(std::move(redo));
      }
    }
    flush_times();
    if (writer) writer->finish();
    return out;
  }

 private:
  static constexpr std::size_t kEveryRow = std::numeric_limits<std::size_t>::max();

  // One pass over a set of queries: the threshold is the rank-th smallest (0-based) of the
  // distances to the first `sample` rows of the stratified sample (kEveryRow: +inf), and each
  // query's first `capacity` candidates are kept.
  struct Pass {
    std::vector<std::size_t> queries;
    std::size_t sample = 0, rank = 0, capacity = 0;
  };

  struct TileOutcome {
    std::vector<std::size_t> overflowed;  // more candidates than the capacity
    std::vector<std::size_t> short_of_k;  // fewer than k candidates (a sample rank below need)
    std::size_t largest_count = 0;        // over the overflowed queries
  };

  // Candidates of a query whose threshold is the rank-th of s sample distances (expected).
  std::size_t expected_candidates(std::size_t rank_plus_one, std::size_t s) const {
    return static_cast<std::size_t>(std::ceil(double(rank_plus_one) * double(n_) / double(s)));
  }

  // The threshold of the first pass (Floyd–Rivest in kNN form). Small k: the need-th of
  // s = need n / target sample rows, valid by construction (need sample rows lie within it),
  // about target = max(2048, 8 need) candidates. Large k (need^2 > 2048 * 64): that would
  // keep 8 need candidates and a sample of n / 8 rows, so instead s = 64 n / need rows (the
  // sample holds about mu = 64 rows among the true need nearest) and the threshold is the
  // sample's rank ceil(mu + 3 sqrt(mu)) = 88: about 1.4 need candidates; fewer than k happens
  // with probability ~1e-3 per query (a 3-sigma event), and those queries are redone with the
  // valid rank (nearest(), short_of_k).
  Pass first_pass(std::size_t need) const {
    Pass pass;
    if (tuning_.sample_rows != 0 || need * need <= kMinCandidates * kLargeKSampleRank) {
      const std::size_t target = gemm_now_ ? std::max(kMinCandidatesGemm, kSurvivorsPerNeighborGemm * need)
                                           : std::max(kMinCandidates, kSurvivorsPerNeighbor * need);
      std::size_t s = tuning_.sample_rows != 0
                          ? tuning_.sample_rows
                          : static_cast<std::size_t>(std::ceil(double(need) * double(n_) / double(target)));
      pass.sample = std::clamp(s, need, n_);
      pass.rank = need - 1;
      pass.capacity = std::min(n_, 4 * target);
    } else {
      const std::size_t s = std::clamp(static_cast<std::size_t>(std::ceil(
                                           double(kLargeKSampleRank) * double(n_) / double(need))),
                                       std::size_t{1}, n_);
      const double mu = double(need) * double(s) / double(n_);
      const auto rank = static_cast<std::size_t>(std::ceil(mu + kLargeKSigmas * std::sqrt(mu)));
      pass.sample = s;
      pass.rank = std::min(rank, s) - 1;
      if (s == n_) pass.rank = need - 1;  // the sample is every row: exact
      pass.capacity = std::min(n_, 2 * expected_candidates(pass.rank + 1, s));
    }
    if (tuning_.candidates_per_query != 0) pass.capacity = tuning_.candidates_per_query;
    pass.capacity = std::clamp(pass.capacity, need, n_);  // need <= n (nearest() checks k)
    return pass;
  }

  // Bytes a tile holds per query in this pass.
  std::size_t bytes_per_query(const Pass& pass, std::size_t k) const {
    const std::size_t list = pass.capacity * (sizeof(Row) + sizeof(T));
    const std::size_t sample = pass.rank == kEveryRow ? 0 : pass.sample * sizeof(T);
    const std::size_t dots = gemm_now_ ? gemm_chunk() * sizeof(T) : 0;
    return d_ * sizeof(T) + sample + dots + 4 * list + k * (sizeof(std::int64_t) + sizeof(double)) +
           (std::size_t{1} << 14);
  }

  std::size_t gemm_chunk() const {
    return std::min(n_, tuning_.train_chunk != 0 ? tuning_.train_chunk : kGemmChunkRows);
  }

  // cuBLAS (pedantic math: no TF32 or other reduced-precision shortcut, whatever the
  // environment asks, so the full-float bound holds; the TF32 handle has its own, wider bound) and the training rows' squared norms, once.
  void prepare_gemm() {
    if (cublas_) return;
    check_cublas(cublasCreate(&cublas_), "cublasCreate");
    check_cublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
    check_cublas(cublasSetMathMode(cublas_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    if (sizeof(T) == sizeof(float) && tuning_.gemm_tf32 && train_tf32_ok_) {
      // A handle of its own: the compute type asks for TF32, the pedantic one could refuse it.
      check_cublas(cublasCreate(&cublas_tf32_), "cublasCreate");
      check_cublas(cublasSetStream(cublas_tf32_, stream_), "cublasSetStream");
      check_cublas(cublasSetMathMode(cublas_tf32_, CUBLAS_TF32_TENSOR_OP_MATH), "cublasSetMathMode");
    }
    RF_KNN_CUDA(cudaMalloc(reinterpret_cast<void**>(&train_norms_), n_ * sizeof(T)));
    cuda::squared_norms(train_, n_, d_, train_norms_, stream_);
    if (cublas_tf32_) {
      RF_KNN_CUDA(cudaMalloc(reinterpret_cast<void**>(&train_roots_), n_ * sizeof(T)));
      cuda::rounded_up_roots(train_norms_, n_, train_roots_, stream_);
    }
    RF_KNN_CUDA(cudaStreamSynchronize(stream_));
  }

  void prepare_device_lists(std::size_t m, std::size_t k) {
    if (m * k > device_capacity_) {
      cudaFree(device_rows_);
      cudaFree(device_distances_);
      device_rows_ = nullptr;
      device_distances_ = nullptr;
      device_capacity_ = 0;
      RF_KNN_CUDA(cudaMalloc(reinterpret_cast<void**>(&device_rows_), m * k * sizeof(std::int64_t)));
      RF_KNN_CUDA(cudaMalloc(reinterpret_cast<void**>(&device_distances_), m * k * sizeof(double)));
      device_capacity_ = m * k;
    }
    device_queries_ = m;
    device_k_ = k;
  }

  std::size_t query_tile(const Pass& pass, std::size_t k, std::size_t remaining) const {
    const std::size_t fixed = sample_bytes(pass.sample);
    const std::size_t per_query = bytes_per_query(pass, k);
    const std::size_t fit = budget_ > fixed ? (budget_ - fixed) / per_query : 0;
    if (fit == 0)
      throw selection::cuda::OutOfMemory(
          "GPU out of memory in the kNN engine: one query needs " + std::to_string(per_query) +
          " bytes of device memory (sample " + std::to_string(pass.sample) + " rows, " +
          std::to_string(pass.capacity) + " candidates), the budget is " + std::to_string(budget_));
    const std::size_t most = std::clamp(kTilePairs / n_, kMaxQueryTile, kMaxQueryTileSmallRows);
    std::size_t tile = std::min({fit, remaining, most});
    if (tuning_.query_tile != 0) tile = std::min(tile, tuning_.query_tile);
    return std::max<std::size_t>(tile, 1);
  }

  std::size_t sample_bytes(std::size_t s) const { return s * ((d_ + 1) * sizeof(T) + sizeof(Row)); }

  // A stratified random sample of s rows (one uniform row per stratum of n / s rows), fixed
  // seed: the thresholds, and so the work, do not depend on the data's order.
  void prepare_sample(std::size_t s) {
    if (s == sample_size_) return;
    std::vector<Row> ids(s);
    std::mt19937_64 generator(0x6b6e6eULL + s);
    for (std::size_t j = 0; j < s; ++j) {
      const std::size_t lo = j * n_ / s, hi = (j + 1) * n_ / s;
      ids[j] = Row(lo + (hi > lo + 1 ? generator() % (hi - lo) : 0));
    }
    Row* d_ids = workspace_.device_as<Row>(kSampleIds, s);
    T* d_rows = workspace_.device_as<T>(kSampleRows, s * d_);
    RF_KNN_CUDA(cudaMemcpyAsync(d_ids, ids.data(), s * sizeof(Row), cudaMemcpyHostToDevice, stream_));
    cuda::gather_rows(train_, d_ids, s, d_, d_rows, stream_);
    if (metric_ == cuda::Distance::euclidean)  // for the GEMM path's bounds
      cuda::squared_norms(d_rows, s, d_, workspace_.device_as<T>(kSampleNorms, s), stream_);
    RF_KNN_CUDA(cudaStreamSynchronize(stream_));
    sample_size_ = s;
  }

  void run_tile(const RowMatrix& queries, std::vector<std::size_t> indices, std::size_t k,
                bool ordered, std::optional<std::size_t> self_from, const Pass& pass,
                bool gemm, ListWriter* writer, TileOutcome& outcome) {
    const std::size_t mt = indices.size();
    const std::size_t s = pass.sample, capacity = pass.capacity;
    // Pinned, so the uploads below are asynchronous: the previous tile's uploads from these
    // buffers were done before its candidate counts came back (the sync below).
    T* host_queries = workspace_.host_as<T>(kHostQueries, mt * d_);
    const bool queries_normal = gather_queries(queries, indices, d_, host_queries, gemm && cublas_tf32_);
    Row* host_self = self_from ? workspace_.host_as<Row>(kHostSelf, mt) : nullptr;
    if (self_from)
      for (std::size_t i = 0; i < mt; ++i) host_self[i] = Row(*self_from + indices[i]);
    const bool tf32 = gemm && cublas_tf32_ && queries_normal;
    const T tf32_factor = tf32 ? T(cuda::tf32_bound_factor(d_)) : T(0);
    T* d_queries = workspace_.device_as<T>(kQueries, mt * d_);
    const auto dots = [&](const T* rows_of, std::size_t rows, T* into) {
      if (tf32) gemm_dots_tf32(cublas_tf32_, rows_of, rows, d_queries, mt, d_, into);
      else gemm_dots(cublas_, rows_of, rows, d_queries, mt, d_, into);
    };
    Row* d_self = self_from ? workspace_.device_as<Row>(kSelf, mt) : nullptr;
    T* d_thresholds = workspace_.device_as<T>(kThresholds, mt);
    auto* d_counts = workspace_.device_as<unsigned>(kCounts, mt);
    Row* d_cand_rows = workspace_.device_as<Row>(kCandRows, mt * capacity);
    T* d_cand_distances = workspace_.device_as<T>(kCandDistances, mt * capacity);
    T* d_tau = workspace_.device_as<T>(kTau, mt);
    Row* d_kept_rows = workspace_.device_as<Row>(kKeptRows, mt * capacity);
    T* d_kept_distances = workspace_.device_as<T>(kKeptDistances, mt * capacity);
    auto* d_kept = workspace_.device_as<unsigned>(kKept, mt);
    auto* d_out_rows = workspace_.device_as<std::int64_t>(kOutRows, mt * k);
    auto* d_out_distances = workspace_.device_as<double>(kOutDistances, mt * k);

    RF_KNN_CUDA(cudaMemcpyAsync(d_queries, host_queries, mt * d_ * sizeof(T),
                                cudaMemcpyHostToDevice, stream_));
    if (self_from)
      RF_KNN_CUDA(cudaMemcpyAsync(d_self, host_self, mt * sizeof(Row),
                                  cudaMemcpyHostToDevice, stream_));
    T* d_query_norms = nullptr;
    if (gemm) {
      d_query_norms = workspace_.device_as<T>(kQueryNorms, mt);
      cuda::squared_norms(d_queries, mt, d_, d_query_norms, stream_);
    }
    flush_times();
    events_.record(0, stream_);
    if (pass.rank == kEveryRow) {
      events_.record(1, stream_);
      cuda::fill(d_thresholds, mt, std::numeric_limits<T>::infinity(), stream_);
    } else {
      T* d_block = workspace_.device_as<T>(kSampleBlock, mt * s);
      const Row* d_sample_ids = workspace_.device_as<Row>(kSampleIds, s);
      const T* d_sample_rows = workspace_.device_as<T>(kSampleRows, s * d_);
      if (gemm) {  // upper bounds of THE direct distance: a valid threshold as well
        dots(d_sample_rows, s, d_block);
        cuda::dots_to_upper_bounds(d_block, s, mt, s, d_, d_query_norms,
                                   workspace_.device_as<T>(kSampleNorms, s), d_sample_ids,
                                   d_self, tf32_factor, stream_);
      } else {
        cuda::block_distances(d_queries, mt, d_sample_rows, d_sample_ids, s, d_, metric_, d_self,
                              d_block, s, stream_);
      }
      events_.record(1, stream_);
      selection::cuda::kth_smallest_batched(d_block, s, mt, s, pass.rank, d_thresholds,
                                            selection::Algorithm::automatic,
                                            selection_workspace_, stream_);
    }
    events_.record(2, stream_);
    RF_KNN_CUDA(cudaMemsetAsync(d_counts, 0, mt * sizeof(unsigned), stream_));
    if (gemm) {
      // Dot products of the tile with a chunk of training rows, then the bound test; THE
      // direct distance of the candidates only.
      const std::size_t chunk = gemm_chunk();
      T* d_dots = workspace_.device_as<T>(kDots, mt * chunk);
      for (std::size_t b = 0; b < n_; b += chunk) {
        const std::size_t rows = std::min(n_, b + chunk) - b;
        dots(train_ + b * d_, rows, d_dots);
        cuda::filter_by_bounds(d_dots, rows, mt, d_, d_query_norms, train_norms_ + b,
                               train_roots_ ? train_roots_ + b : nullptr, Row(b),
                               d_self, d_thresholds, d_counts, d_cand_rows, capacity,
                               tf32_factor, stream_);
      }
      cuda::candidate_distances(d_queries, mt, train_, d_, d_counts, d_cand_rows,
                                d_cand_distances, capacity, stream_);
    } else {
      const std::size_t chunk = tuning_.train_chunk != 0 ? tuning_.train_chunk : n_;
      for (std::size_t b = 0; b < n_; b += chunk)
        cuda::filter_candidates(d_queries, mt, train_, b, std::min(n_, b + chunk), d_, metric_,
                                d_self, d_thresholds, d_counts, d_cand_rows, d_cand_distances,
                                capacity, stream_);
    }
    events_.record(3, stream_);
    auto* counts = workspace_.host_as<unsigned>(kHostCounts, mt);
    RF_KNN_CUDA(cudaMemcpyAsync(counts, d_counts, mt * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                stream_));
    RF_KNN_CUDA(cudaStreamSynchronize(stream_));
    std::size_t used = k;  // rows of the candidate block the k-th is taken over
    std::vector<char> done(mt, 0);
    for (std::size_t i = 0; i < mt; ++i) {
      if (counts[i] < k) {
        outcome.short_of_k.push_back(indices[i]);
      } else if (counts[i] > capacity) {
        outcome.overflowed.push_back(indices[i]);
        outcome.largest_count = std::max<std::size_t>(outcome.largest_count, counts[i]);
      } else {
        done[i] = 1;
        used = std::max<std::size_t>(used, counts[i]);
      }
    }
    cuda::pad_with_infinity(d_cand_distances, d_counts, mt, capacity, used, stream_);
    selection::cuda::kth_smallest_batched(d_cand_distances, used, mt, capacity, k - 1, d_tau,
                                          selection::Algorithm::automatic,
                                          selection_workspace_, stream_);
    events_.record(4, stream_);
    cuda::keep_within(d_cand_rows, d_cand_distances, d_counts, d_tau, mt, capacity, d_kept_rows,
                      d_kept_distances, d_kept, stream_);
    bool ties = false;  // only the unordered mode asks (the ordered one sorts every list)
    if (!ordered) {
      auto* kept = workspace_.host_as<unsigned>(kHostKept, mt);
      RF_KNN_CUDA(cudaMemcpyAsync(kept, d_kept, mt * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                  stream_));
      RF_KNN_CUDA(cudaStreamSynchronize(stream_));
      for (std::size_t i = 0; i < mt; ++i) ties |= done[i] && kept[i] != k;
    }
    // Ordered: every list sorted; unordered: only lists with ties at the k-th distance (their
    // k smallest rows among the tied ones are the answer), the rest are the k kept as they are.
    if (ordered || ties)
      cuda::sort_by_distance_then_row(d_kept_rows, d_kept_distances, d_kept, mt, capacity,
                                      ordered ? 0 : k, workspace_, kSortFirst, stream_);
    if (!writer) {
      // Straight into the whole result on the device, at each query's own place (queries redone
      // later are overwritten then, on the same stream).
      // Pinned: the next tile rewrites it only after its own counts sync, when this upload is done.
      auto* dest = workspace_.host_as<std::uint32_t>(kHostDest, mt);
      std::copy(indices.begin(), indices.end(), dest);
      auto* d_dest = workspace_.device_as<std::uint32_t>(kOutIndex, mt);
      RF_KNN_CUDA(cudaMemcpyAsync(d_dest, dest, mt * sizeof(std::uint32_t),
                                  cudaMemcpyHostToDevice, stream_));
      cuda::write_lists(d_kept_rows, d_kept_distances, d_kept, mt, capacity, k, d_dest,
                        device_rows_, device_distances_, stream_);
      events_.record(5, stream_);
    } else {
      if (last_staged_) RF_KNN_CUDA(cudaStreamWaitEvent(stream_, last_staged_, 0));
      cuda::write_lists(d_kept_rows, d_kept_distances, d_kept, mt, capacity, k, nullptr,
                        d_out_rows, d_out_distances, stream_);
      events_.record(5, stream_);
      RF_KNN_CUDA(cudaEventRecord(listed_, stream_));
      last_staged_ = writer->stage(listed_, d_out_rows, d_out_distances, std::move(indices),
                                   std::move(done));
    }
    times_pending_ = true;
    if (tf32) ++times_.tf32_tiles;
  }

  // The device-time split of the last tile, read once its last event has happened (the next
  // tile's host work and the staging copies overlap it meanwhile).
  void flush_times() {
    if (!times_pending_) return;
    times_pending_ = false;
    events_.synchronize(5);
    times_.distance_s += events_.seconds(0, 1) + events_.seconds(2, 3);
    times_.selection_s += events_.seconds(1, 2) + events_.seconds(3, 4);
    times_.collect_s += events_.seconds(4, 5);
  }

  std::size_t n_, d_;
  cuda::Distance metric_;
  CudaKnnTuning tuning_;
  cudaStream_t stream_ = nullptr;
  T* train_ = nullptr;
  std::size_t budget_ = 0;
  std::size_t sample_size_ = 0;
  bool gemm_now_ = false;
  bool times_pending_ = false;  // this nearest() call uses the GEMM-form filter
  cudaStream_t copy_stream_ = nullptr;  // device-to-host staging of the lists
  cudaEvent_t listed_ = nullptr;        // a tile's lists are written (compute stream)
  cudaEvent_t last_staged_ = nullptr;   // the last staging copy (reads the tile's lists)
  ListWriter::Staging staging_[2];
  cublasHandle_t cublas_ = nullptr;
  cublasHandle_t cublas_tf32_ = nullptr;  // float GEMM filter on TF32 tensor cores (tuning_.gemm_tf32)
  bool train_tf32_ok_ = false;            // float, d <= kMaxTf32Features, no subnormal values
  T* train_norms_ = nullptr;
  T* train_roots_ = nullptr;  // sqrt of train_norms_ rounded up, where TF32 dot products may be used
  std::int64_t* device_rows_ = nullptr;  // lists_on_device: the whole m x k result
  double* device_distances_ = nullptr;
  std::size_t device_capacity_ = 0, device_queries_ = 0, device_k_ = 0;
  Workspace workspace_;
  Workspace selection_workspace_;
  Events events_;
  CudaKnnTimes times_;
};

}  // namespace

std::unique_ptr<CudaKnnEngine> make_cuda_knn_engine(const RowMatrix& train, Metric metric,
                                                    Precision precision,
                                                    const CudaKnnTuning& tuning) {
  if (precision == Precision::single_precision)
    return std::make_unique<CudaEngineImpl<float>>(train, metric, tuning);
  return std::make_unique<CudaEngineImpl<double>>(train, metric, tuning);
}

std::unique_ptr<detail::Engine> make_cuda_engine(const RowMatrix& train, Metric metric,
                                                 Precision precision) {
  return make_cuda_knn_engine(train, metric, precision);
}

}  // namespace robustfit::neighbors::detail
