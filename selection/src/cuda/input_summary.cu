// Min, max and NaN presence in one cub::DeviceReduce::TransformReduce pass. Min and max are
// taken over order-preserving keys, so +-inf and signed zeros need no special cases; a NaN
// only needs to be noticed, its key never reaches the caller.
#include <cub/device/device_reduce.cuh>

#include "algorithms.cuh"
#include "cuda_check.cuh"
#include "input_summary.cuh"
#include "key_traits.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

template <class Key>
struct KeyRange {
  Key min, max;
  unsigned long long nans;
};

template <class T>
struct ToKeyRange {
  using Key = typename KeyTraits<T>::Key;
  __device__ KeyRange<Key> operator()(const T& x) const {
    const Key key = KeyTraits<T>::to_key(x);
    return {key, key, x != x ? 1ull : 0ull};
  }
};

template <class Key>
struct MergeKeyRange {
  __device__ KeyRange<Key> operator()(const KeyRange<Key>& a, const KeyRange<Key>& b) const {
    return {a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max, a.nans + b.nans};
  }
};

}  // namespace

template <class T>
InputSummary<T> summarize_input(const T* d_values, std::size_t n, Workspace& workspace,
                                cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  using Range = KeyRange<Key>;
  auto* d_result = workspace.device_as<Range>(kSummaryRange, 1);
  auto* h_result = workspace.host_as<Range>(kSummaryRange, 1);
  const Range identity{Key(~Key(0)), Key(0), 0};
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, d_values, d_result, n,
                                                MergeKeyRange<Key>{}, ToKeyRange<T>{}, identity,
                                                stream));
  void* d_temp = workspace.device(kSummaryTemp, temp_bytes);
  CUDA_CHECK(cub::DeviceReduce::TransformReduce(d_temp, temp_bytes, d_values, d_result, n,
                                                MergeKeyRange<Key>{}, ToKeyRange<T>{}, identity,
                                                stream));
  CUDA_CHECK(cudaMemcpyAsync(h_result, d_result, sizeof *h_result, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return {KeyTraits<T>::from_key(h_result->min), KeyTraits<T>::from_key(h_result->max),
          h_result->nans != 0};
}

template InputSummary<float> summarize_input<float>(const float*, std::size_t, Workspace&,
                                                    cudaStream_t);
template InputSummary<double> summarize_input<double>(const double*, std::size_t, Workspace&,
                                                      cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
