// Public entry points: argument checks, NaN policy, the `automatic` choice, and dispatch.
//
// NaN policy. The module's own algorithms (sort, cutting plane, radix, Floyd–Rivest, bracket,
// sampled multiselection) notice NaNs during a pass they make anyway (checked_select.cuh,
// sampled_multi_select.cuh); before the others (bucket, sample, multi), one min/max/NaN
// reduction runs, which also answers k = 0, k = n-1 and min == max directly.
//
// Automatic choice (H200 measurements, bench/results/SELECTION.md):
//   one rank, k = 0 or k = n-1        -> the min/max/NaN reduction alone (one read pass)
//   one rank, n >= 2^25 (double) or 2^26 (float) -> Floyd–Rivest (one read of the input)
//   one rank, 2^22 < n below that     -> bracket (Floyd–Rivest finished on the device, in one
//                                       cooperative launch: radix costs 1.6-18 x its uniform
//                                       time on ties there)
//   one rank, otherwise               -> radix (one cooperative launch up to 2^22 values)
//   many ranks                       -> up to kLoopRanks ranks: the one-rank choice per rank;
//                                       n >= kSampledMultiMinSize: sampled multiselection up
//                                       to kSampledMultiMaxFloatRanks float or
//                                       kSampledMultiMaxRanks double ranks, one sort beyond;
//                                       smaller n: multi (bucketMultiSelect) for double or at
//                                       most kMultiMaxFloatRanks float ranks, else one sort
//   batched                          -> the batched bracket from 2^16 rows and 2^24 values,
//                                       else batched radix (sort only when asked for)
//
// What each entry point accepts is the capability table's (robustfit/selection/capabilities.hpp):
// anything else is rejected with its message. Batched selection runs sort, radix and bracket as
// one batched pass and the single-vector algorithms (cutting plane, bucket, sample, Floyd–Rivest)
// one column at a time.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "algorithms.cuh"
#include "batched_bracket.cuh"
#include "batched_select.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "input_summary.cuh"
#include "sampled_multi_select.cuh"
#include "robustfit/selection/capabilities.hpp"
#include "robustfit/selection/cuda/select.hpp"

namespace robustfit::selection::cuda {
namespace {

// From here Floyd–Rivest. Doubles: its host finish costs less than the bracket's six finishing
// digits (H200, 2^25: 195 / 200 us against 212 / 217, uniform / normal). Floats: the bracket's one
// launch with an 8192-key sample is the faster at 2^25 (121 / 127 against 133 / 145 us); from
// 2^26 its default sample is CUB-sorted and its launches separate (186 against 172 us).
// bench/results/selection_one_launch_bracket_h200_2026-11-29 (calls e and g).
constexpr std::size_t kFloydRivestMinDoubles = std::size_t{1} << 25;
constexpr std::size_t kFloydRivestMinFloats = std::size_t{1} << 26;
// Between the cooperative radix's sizes and Floyd–Rivest's: bracket selection, in one
// cooperative launch with a 2048-key sample (8192 from 2^25; bracket_one_launch.cu). H200,
// 2026-11-29 (bench/results/selection_one_launch_bracket_h200_2026-11-29), medians of 2^24 values: radix
// took 1.6-6 x (float) and 4-18 x (double) its uniform time on ties (float all equal 164 us,
// double 760 us), the bracket at most its uniform time; on uniform data it is the faster
// (float 88 against 110 us, double 138 against 198), on normal-like floats the same (83 / 94),
// on normal-like doubles the same (138 / 137); at 2^23 within 8 % of radix either way on smooth
// data and 2-7 x faster on ties. At 2^22 radix's one launch is the faster on smooth data (floats
// 46-51 against 62-65 us), the bracket on ties only.
constexpr std::size_t kBracketAutoMinSize = (std::size_t{1} << 22) + 1;
constexpr std::size_t kLoopRanks = 3;             // per-rank radix beats one pass set for all
constexpr std::size_t kMultiMaxFloatRanks = 128;  // 1001 float ranks: one sort was faster
// Sampled multiselection: its candidates grow as ranks / edges (8192 edges for 1001 ranks: about
// an eighth of n), and it falls back to one sort beyond half of n; below 2^20 values the
// launches dominate. H100, 2^26 values (bench/results/SELECTION.md, 2026-11-26): 1001 float
// ranks 1.54 / 1.78 ms (uniform / normal) against one sort's 1.54 / 1.53 ms, 1001 double ranks
// 1.84 / 2.46 ms against sort 4.39 and multi 3.1 ms; 10001 ranks: sort 1.56-1.65 (float) and
// 4.45 ms (double) against sampled 2.4 / 5.2 and multi 2.6 / 5.6 ms. So from 2^20 values:
// sampled multiselection up to 256 float or 1024 double ranks, one sort beyond.
constexpr std::size_t kSampledMultiMinSize = std::size_t{1} << 20;
constexpr std::size_t kSampledMultiMaxRanks = 1024;
constexpr std::size_t kSampledMultiMaxFloatRanks = 256;

Algorithm automatic_single(std::size_t n, bool is_double) {
  if (n >= (is_double ? kFloydRivestMinDoubles : kFloydRivestMinFloats)) return Algorithm::floyd_rivest;
  return n >= kBracketAutoMinSize ? Algorithm::bracket : Algorithm::radix;
}

Algorithm automatic_many(std::size_t n, std::size_t count, bool is_double) {
  if (count <= kLoopRanks) return Algorithm::automatic;  // per rank: automatic_single
  if (n >= kSampledMultiMinSize)
    return count <= (is_double ? kSampledMultiMaxRanks : kSampledMultiMaxFloatRanks) ? Algorithm::sampled_multi
                                                                                      : Algorithm::sort;
  return is_double || count <= kMultiMaxFloatRanks ? Algorithm::multi : Algorithm::sort;
}

// Batched: the sampled bracket reads the matrix once where batched radix reads it 3 (float) or
// 6 (double) times, but costs a sample sort per column and its own launches. H200, 2026-11-23
// (bench/results/SELECTION.md, "Issue 11 round"): bracket wins from 2^16 rows once the matrix
// holds 2^24 values (512 x 2^20 float 1.75 -> 0.98 ms, double 5.75 -> 1.71 ms; 20 x 10^6 double
// 0.27 -> 0.17 ms; 4096 x 2^16 float 2.5 -> 1.1 ms) and loses below (64 x 2^16 float 0.051 vs
// 0.066 ms; 4096 x 2^12 float 0.097 vs 0.56 ms).
constexpr std::size_t kBatchedBracketMinColumnRows = std::size_t{1} << 16;
constexpr std::size_t kBatchedBracketMinValues = std::size_t{1} << 24;

Algorithm automatic_batched(std::size_t rows, std::size_t cols) {
  return rows >= kBatchedBracketMinColumnRows && rows * cols >= kBatchedBracketMinValues ? Algorithm::bracket
                                                                                          : Algorithm::radix;
}

void require_valid(const char* function, std::size_t n, std::size_t k) {
  if (n == 0) throw std::invalid_argument(std::string(function) + ": empty input (n = 0)");
  if (k >= n)
    throw std::invalid_argument(std::string(function) + ": rank k = " + std::to_string(k) +
                                " is out of range for n = " + std::to_string(n) +
                                " (0-based, need k < n)");
}

// An input holding NaN. Callers see std::invalid_argument; per-column batched selection
// catches this one type and writes NaN for the column instead, as the batched passes do.
class NanInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

[[noreturn]] void throw_nan(const char* function) {
  throw NanInput(std::string(function) + ": the input holds NaN; order statistics are undefined");
}

template <class T>
T value_or_throw(detail::Checked<T> result, const char* function) {
  if (result.has_nan) throw_nan(function);
  return result.value;
}

// Algorithms that assume NaN-free input get the summary pass and its shortcuts first.
template <class T>
T select_after_summary(const T* d_values, std::size_t n, std::size_t k, Algorithm algorithm,
                       Workspace& workspace, cudaStream_t stream, const char* function) {
  const auto summary = detail::summarize_input(d_values, n, workspace, stream);
  if (summary.has_nan) throw_nan(function);
  if (k == 0 || summary.min == summary.max) return summary.min;
  if (k == n - 1) return summary.max;
  switch (algorithm) {
    case Algorithm::bucket: return detail::bucket_select(d_values, n, k, workspace, stream);
    case Algorithm::sample: return detail::sample_select(d_values, n, k, workspace, stream);
    default: throw std::logic_error("select_after_summary: unexpected algorithm");
  }
}

template <class T>
T select_one(const T* d_values, std::size_t n, std::size_t k, Algorithm algorithm,
             Workspace& workspace, cudaStream_t stream, const char* function) {
  if (algorithm == Algorithm::automatic && (k == 0 || k == n - 1)) {
    const auto summary = detail::summarize_input(d_values, n, workspace, stream);
    if (summary.has_nan) throw_nan(function);
    return k == 0 ? summary.min : summary.max;
  }
  if (algorithm == Algorithm::automatic) algorithm = automatic_single(n, std::is_same_v<T, double>);
  switch (algorithm) {
    case Algorithm::bracket:
      return value_or_throw(
          detail::bracket_select_checked(d_values, n, k, detail::BracketParams{}, workspace, stream), function);
    case Algorithm::floyd_rivest:
      return value_or_throw(detail::floyd_rivest_select_checked(d_values, n, k, detail::FloydRivestParams{},
                                                                workspace, stream),
                            function);
    case Algorithm::automatic:
    case Algorithm::radix:
      return value_or_throw(
          detail::radix_select_checked(d_values, n, k, detail::RadixParams{}, workspace, stream),
          function);
    case Algorithm::sort:
      return value_or_throw(detail::sort_select_checked(d_values, n, k, workspace, stream),
                            function);
    case Algorithm::cutting_plane:
      return value_or_throw(detail::cutting_plane_select_checked(
                                d_values, n, k, detail::CuttingPlaneParams{}, workspace, stream),
                            function);
    case Algorithm::bucket:
    case Algorithm::sample:
      return select_after_summary(d_values, n, k, algorithm, workspace, stream, function);
    case Algorithm::multi:
    case Algorithm::sampled_multi: {
      T out{};
      kth_smallest_many(d_values, n, &k, 1, &out, algorithm, workspace, stream);
      return out;
    }
    case Algorithm::nth_element: break;
  }
  throw std::invalid_argument(std::string(function) + ": " +
                              unavailable_message(Backend::cuda, Use::single, algorithm));
}

// The single-vector algorithms have no batched form: one selection per column, each synchronising.
template <class T>
void batched_per_column(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld,
                        std::size_t k, T* d_out, Algorithm algorithm, Workspace& workspace,
                        cudaStream_t stream) {
  std::vector<T> host(cols);
  for (std::size_t j = 0; j < cols; ++j) {
    try {
      host[j] = select_one(d_matrix + j * ld, rows, k, algorithm, workspace, stream,
                           "kth_smallest_batched");
    } catch (const NanInput&) {
      host[j] = std::numeric_limits<T>::quiet_NaN();
    }
  }
  CUDA_CHECK(cudaMemcpyAsync(d_out, host.data(), sizeof(T) * cols, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // `host` must outlive the copy
}

void require_cuda_offers(const char* function, Use use, Algorithm algorithm) {
  if (!offers(Backend::cuda, use, algorithm))
    throw std::invalid_argument(std::string(function) + ": " +
                                unavailable_message(Backend::cuda, use, algorithm));
}

}  // namespace

template <class T>
T kth_smallest(const T* d_values, std::size_t n, std::size_t k, Algorithm algorithm,
               Workspace& workspace, cudaStream_t stream) {
  require_cuda_offers("kth_smallest", Use::single, algorithm);
  require_valid("kth_smallest", n, k);
  return select_one(d_values, n, k, algorithm, workspace, stream, "kth_smallest");
}

template <class T>
T kth_smallest_inplace(T* d_values, std::size_t n, std::size_t k, Algorithm algorithm,
                       Workspace& workspace, cudaStream_t stream) {
  require_cuda_offers("kth_smallest_inplace", Use::single, algorithm);
  require_valid("kth_smallest_inplace", n, k);
  if (algorithm == Algorithm::sort)  // sorts the input itself: saves the copy
    return value_or_throw(detail::sort_select_inplace_checked(d_values, n, k, workspace, stream),
                          "kth_smallest_inplace");
  return select_one<T>(d_values, n, k, algorithm, workspace, stream, "kth_smallest_inplace");
}

template <class T>
void kth_smallest_many(const T* d_values, std::size_t n, const std::size_t* ks, std::size_t count,
                       T* out, Algorithm algorithm, Workspace& workspace, cudaStream_t stream) {
  constexpr const char* kFunction = "kth_smallest_many";
  require_cuda_offers(kFunction, Use::many, algorithm);
  if (n == 0) throw std::invalid_argument(std::string(kFunction) + ": empty input (n = 0)");
  for (std::size_t i = 0; i < count; ++i) require_valid(kFunction, n, ks[i]);
  if (count == 0) return;
  if (algorithm == Algorithm::automatic)
    algorithm = automatic_many(n, count, sizeof(T) == sizeof(double));
  if (algorithm == Algorithm::sampled_multi) {
    if (detail::sampled_multi_select_checked(d_values, n, ks, count, out, detail::SampledMultiParams{},
                                             workspace, stream))
      throw_nan(kFunction);
    return;
  }
  if (algorithm == Algorithm::multi) {
    const auto summary = detail::summarize_input(d_values, n, workspace, stream);
    if (summary.has_nan) throw_nan(kFunction);
    if (summary.min == summary.max) {
      for (std::size_t i = 0; i < count; ++i) out[i] = summary.min;
      return;
    }
    detail::bucket_multi_select(d_values, n, ks, count, out, workspace, stream);
    return;
  }
  if (algorithm == Algorithm::sort) {
    if (detail::sort_select_many_checked(d_values, n, ks, count, out, workspace, stream))
      throw_nan(kFunction);
    return;
  }
  for (std::size_t i = 0; i < count; ++i)
    out[i] = select_one(d_values, n, ks[i], algorithm, workspace, stream, kFunction);
}

template <class T>
void kth_smallest_batched(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld,
                          std::size_t k, T* d_out, Algorithm algorithm, Workspace& workspace,
                          cudaStream_t stream) {
  require_cuda_offers("kth_smallest_batched", Use::batched, algorithm);
  require_valid("kth_smallest_batched", rows, k);
  if (ld < rows)
    throw std::invalid_argument("kth_smallest_batched: leading dimension ld = " +
                                std::to_string(ld) + " is smaller than rows = " +
                                std::to_string(rows));
  if (cols == 0) return;
  if (algorithm == Algorithm::automatic) algorithm = automatic_batched(rows, cols);
  switch (algorithm) {
    case Algorithm::sort:
      detail::batched_sort_select(d_matrix, rows, cols, ld, k, d_out, workspace, stream);
      return;
    case Algorithm::radix:
      detail::batched_radix_select(d_matrix, rows, cols, ld, k, d_out, workspace, stream);
      return;
    case Algorithm::bracket:
      detail::batched_bracket_select(d_matrix, rows, cols, ld, k, d_out, detail::BatchedBracketParams{}, workspace,
                                     stream);
      return;
    default:
      batched_per_column(d_matrix, rows, cols, ld, k, d_out, algorithm, workspace, stream);
  }
}

#define ROBUSTFIT_INSTANTIATE(T)                                                               \
  template T kth_smallest<T>(const T*, std::size_t, std::size_t, Algorithm, Workspace&,        \
                             cudaStream_t);                                                    \
  template T kth_smallest_inplace<T>(T*, std::size_t, std::size_t, Algorithm, Workspace&,      \
                                     cudaStream_t);                                            \
  template void kth_smallest_many<T>(const T*, std::size_t, const std::size_t*, std::size_t,   \
                                     T*, Algorithm, Workspace&, cudaStream_t);                 \
  template void kth_smallest_batched<T>(const T*, std::size_t, std::size_t, std::size_t,       \
                                        std::size_t, T*, Algorithm, Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda
