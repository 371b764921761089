// Public entry points: argument checks, NaN policy, the `automatic` choice, and dispatch.
//
// NaN policy. The module's own algorithms (sort, cutting plane, radix, Floyd–Rivest, bracket,
// sampled multiselection) notice NaNs during a pass they make anyway (checked_select.cuh,
// sampled_multi_select.cuh); before the others (bucket, sample, multi), one min/max/NaN
// reduction runs, which also answers k = 0, k = n-1 and min == max directly.
//
// Automatic choice: cuda_automatic.hpp (the thresholds and their measurements in
// src/cuda_automatic.cpp).
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
#include "robustfit/selection/cuda_automatic.hpp"
#include "robustfit/selection/cuda/select.hpp"

namespace robustfit::selection::cuda {
namespace {

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
  if (algorithm == Algorithm::automatic) {
    algorithm = cuda_automatic_single(n, k);
    if (algorithm == Algorithm::automatic) {  // k = 0 or n - 1: one min/max/NaN reduction
      const auto summary = detail::summarize_input(d_values, n, workspace, stream);
      if (summary.has_nan) throw_nan(function);
      return k == 0 ? summary.min : summary.max;
    }
  }
  switch (algorithm) {
    case Algorithm::bracket:
      return value_or_throw(
          detail::bracket_select_checked(d_values, n, k, detail::BracketParams{}, workspace, stream), function);
    case Algorithm::floyd_rivest:
      return value_or_throw(detail::floyd_rivest_select_checked(d_values, n, k, detail::FloydRivestParams{},
                                                                workspace, stream),
                            function);
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
    case Algorithm::automatic:  // resolved above
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
    algorithm = cuda_automatic_many(n, std::span<const std::size_t>(ks, count), sizeof(T) == sizeof(double));
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
  if (algorithm == Algorithm::automatic) algorithm = cuda_automatic_batched(rows, cols);
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
