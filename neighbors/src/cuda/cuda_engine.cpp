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
#include <cuda_runtime_api.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "cuda_engine.hpp"
#include "kernels.hpp"
#include "robustfit/selection/cuda/errors.hpp"
#include "robustfit/selection/cuda/select.hpp"
#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::neighbors::detail {
namespace {

using cuda::Row;
using selection::cuda::Workspace;

constexpr std::size_t kMaxQueryTile = 8192;
constexpr std::size_t kMinCandidates = 2048;  // expected first-pass survivors per query, at least
constexpr std::size_t kSurvivorsPerNeighbor = 8;
constexpr std::size_t kLargeKSampleRank = 64;  // large k: expected sample rows among the need nearest
constexpr double kLargeKSigmas = 3;
constexpr std::size_t kMaxBudgetBytes = std::size_t{96} << 30;

enum Slot : std::size_t {
  kQueries, kSelf, kSampleBlock, kThresholds, kCounts, kCandRows, kCandDistances, kTau,
  kKeptRows, kKeptDistances, kKept, kSortFirst,  // kSortFirst .. +3: sort scratch
  kSampleIds = kSortFirst + 4, kSampleRows, kOutRows, kOutDistances,
};
enum HostSlot : std::size_t { kHostCounts, kHostKept, kHostRows, kHostDistances };

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
  double seconds(int from, int to) const {
    float ms = 0;
    RF_KNN_CUDA(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return ms / 1e3;
  }

 private:
  cudaEvent_t events_[6]{};
};

struct TileJob {
  std::vector<std::size_t> queries;  // indices into the caller's query matrix
};

// Sizes an output vector to `count` copies of `value`. The lists of large k run to a GB
// (2^16 queries x k = 1000 x 16 bytes), and faulting in that much fresh memory 4 KB at a time
// cost more than the whole device search on the H200 host, so large buffers ask for
// transparent huge pages before they are first touched (a hint; ignored where unsupported).
template <class V>
void assign_output(std::vector<V>& out, std::size_t count, V value) {
  out.reserve(count);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (count * sizeof(V) >= 4 * kHuge) {
    const auto begin = reinterpret_cast<std::uintptr_t>(out.data());
    const std::uintptr_t first = (begin + kHuge - 1) / kHuge * kHuge;
    const std::uintptr_t last = (begin + count * sizeof(V)) / kHuge * kHuge;
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
  }
#endif
  out.assign(count, value);
}

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
    std::vector<T> host(train.data(), train.data() + n_ * d_);
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
    cudaFree(train_);
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda"; }
  CudaKnnTimes times() const override { return times_; }
  void reset_times() override { times_ = {}; }

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
    assign_output<std::int64_t>(out.rows, m * k, -1);
    assign_output<double>(out.distances, m * k, 0.0);
    if (m == 0) return out;

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
                   exclude_self_from, pass, out, outcome);
        } catch (const selection::cuda::OutOfMemory&) {
          // Free what the tile held and try a smaller tile; give up at one query.
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
      const std::size_t target = std::max(kMinCandidates, kSurvivorsPerNeighbor * need);
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
    return d_ * sizeof(T) + sample + 4 * list + k * (sizeof(std::int64_t) + sizeof(double)) +
           (std::size_t{1} << 14);
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
    std::size_t tile = std::min({fit, remaining, kMaxQueryTile});
    if (tuning_.query_tile != 0) tile = std::min(tile, tuning_.query_tile);
    return std::max<std::size_t>(tile, 1);
  }

  std::size_t sample_bytes(std::size_t s) const { return s * (d_ * sizeof(T) + sizeof(Row)); }

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
    RF_KNN_CUDA(cudaStreamSynchronize(stream_));
    sample_size_ = s;
  }

  void run_tile(const RowMatrix& queries, std::vector<std::size_t> indices, std::size_t k,
                bool ordered, std::optional<std::size_t> self_from, const Pass& pass,
                NeighborLists& out, TileOutcome& outcome) {
    const std::size_t mt = indices.size();
    const std::size_t s = pass.sample, capacity = pass.capacity;
    std::vector<T> host_queries(mt * d_);
    std::vector<Row> host_self(self_from ? mt : 0);
    for (std::size_t i = 0; i < mt; ++i) {
      const double* row = queries.data() + indices[i] * d_;
      std::copy(row, row + d_, host_queries.begin() + std::ptrdiff_t(i * d_));
      if (self_from) host_self[i] = Row(*self_from + indices[i]);
    }
    T* d_queries = workspace_.device_as<T>(kQueries, mt * d_);
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

    RF_KNN_CUDA(cudaMemcpyAsync(d_queries, host_queries.data(), mt * d_ * sizeof(T),
                                cudaMemcpyHostToDevice, stream_));
    if (self_from)
      RF_KNN_CUDA(cudaMemcpyAsync(d_self, host_self.data(), mt * sizeof(Row),
                                  cudaMemcpyHostToDevice, stream_));
    events_.record(0, stream_);
    if (pass.rank == kEveryRow) {
      events_.record(1, stream_);
      cuda::fill(d_thresholds, mt, std::numeric_limits<T>::infinity(), stream_);
    } else {
      T* d_block = workspace_.device_as<T>(kSampleBlock, mt * s);
      const Row* d_sample_ids = workspace_.device_as<Row>(kSampleIds, s);
      const T* d_sample_rows = workspace_.device_as<T>(kSampleRows, s * d_);
      cuda::block_distances(d_queries, mt, d_sample_rows, d_sample_ids, s, d_, metric_, d_self,
                            d_block, s, stream_);
      events_.record(1, stream_);
      selection::cuda::kth_smallest_batched(d_block, s, mt, s, pass.rank, d_thresholds,
                                            selection::Algorithm::automatic,
                                            selection_workspace_, stream_);
    }
    events_.record(2, stream_);
    RF_KNN_CUDA(cudaMemsetAsync(d_counts, 0, mt * sizeof(unsigned), stream_));
    const std::size_t chunk = tuning_.train_chunk != 0 ? tuning_.train_chunk : n_;
    for (std::size_t b = 0; b < n_; b += chunk)
      cuda::filter_candidates(d_queries, mt, train_, b, std::min(n_, b + chunk), d_, metric_,
                              d_self, d_thresholds, d_counts, d_cand_rows, d_cand_distances,
                              capacity, stream_);
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
    auto* kept = workspace_.host_as<unsigned>(kHostKept, mt);
    RF_KNN_CUDA(cudaMemcpyAsync(kept, d_kept, mt * sizeof(unsigned), cudaMemcpyDeviceToHost,
                                stream_));
    RF_KNN_CUDA(cudaStreamSynchronize(stream_));
    bool ties = false;
    for (std::size_t i = 0; i < mt; ++i) ties |= done[i] && kept[i] != k;
    // Ordered: every list sorted; unordered: only lists with ties at the k-th distance (their
    // k smallest rows among the tied ones are the answer), the rest are the k kept as they are.
    if (ordered || ties)
      cuda::sort_by_distance_then_row(d_kept_rows, d_kept_distances, d_kept, mt, capacity,
                                      ordered ? 0 : k, workspace_, kSortFirst, stream_);
    cuda::write_lists(d_kept_rows, d_kept_distances, d_kept, mt, capacity, k, d_out_rows,
                      d_out_distances, stream_);
    bool contiguous = true;
    for (std::size_t i = 1; i < mt && contiguous; ++i) contiguous = indices[i] == indices[0] + i;
    if (contiguous) {
      // Straight into the result (queries redone later are overwritten then).
      RF_KNN_CUDA(cudaMemcpyAsync(out.rows.data() + indices[0] * k, d_out_rows,
                                  mt * k * sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream_));
      RF_KNN_CUDA(cudaMemcpyAsync(out.distances.data() + indices[0] * k, d_out_distances,
                                  mt * k * sizeof(double), cudaMemcpyDeviceToHost, stream_));
      events_.record(5, stream_);
      RF_KNN_CUDA(cudaStreamSynchronize(stream_));
    } else {
      auto* rows = workspace_.host_as<std::int64_t>(kHostRows, mt * k);
      auto* distances = workspace_.host_as<double>(kHostDistances, mt * k);
      RF_KNN_CUDA(cudaMemcpyAsync(rows, d_out_rows, mt * k * sizeof(std::int64_t),
                                  cudaMemcpyDeviceToHost, stream_));
      RF_KNN_CUDA(cudaMemcpyAsync(distances, d_out_distances, mt * k * sizeof(double),
                                  cudaMemcpyDeviceToHost, stream_));
      events_.record(5, stream_);
      RF_KNN_CUDA(cudaStreamSynchronize(stream_));
      for (std::size_t i = 0; i < mt; ++i) {
        if (!done[i]) continue;  // redone in a later pass
        std::copy(rows + i * k, rows + i * k + k, out.rows.begin() + std::ptrdiff_t(indices[i] * k));
        std::copy(distances + i * k, distances + i * k + k,
                  out.distances.begin() + std::ptrdiff_t(indices[i] * k));
      }
    }
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
