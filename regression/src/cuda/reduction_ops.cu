// CUB passes of DeviceRowReductions: threshold compaction, the sum below a threshold, a sort.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "reduction_ops.hpp"

namespace robustfit::regression::cuda {

namespace {

struct AtMost {
  const double* values;
  double t;
  __device__ bool operator()(std::int32_t i) const { return values[i] <= t; }
};

struct BelowOf {
  double t;
  __device__ SumBelow operator()(double v) const { return v < t ? SumBelow{v, 1} : SumBelow{0.0, 0}; }
};

struct AddBelow {
  __device__ SumBelow operator()(const SumBelow& a, const SumBelow& b) const { return {a.sum + b.sum, a.count + b.count}; }
};

// CUB's two-call protocol: size the scratch, grow `temp`, run.
template <class Call>
void with_temp(DeviceArray<char>& temp, Call&& call) {
  std::size_t bytes = 0;
  CUDA_CHECK(call(static_cast<void*>(nullptr), bytes));
  CUDA_CHECK(call(static_cast<void*>(temp.reserve(std::max<std::size_t>(bytes, 1))), bytes));
}

}  // namespace

std::size_t rows_at_most(const double* d_values, std::size_t n, double t, std::int32_t* d_rows, DeviceArray<char>& temp,
                         DeviceArray<std::int64_t>& result, PinnedArray<std::int64_t>& staged, cudaStream_t stream) {
  const thrust::counting_iterator<std::int32_t> rows(0);
  std::int64_t* d_count = result.reserve(1);
  const AtMost at_most{d_values, t};
  with_temp(temp, [&](void* scratch, std::size_t& bytes) {
    return cub::DeviceSelect::If(scratch, bytes, rows, d_rows, d_count, static_cast<std::int64_t>(n), at_most, stream);
  });
  std::int64_t* host = staged.reserve(1);
  CUDA_CHECK(cudaMemcpyAsync(host, d_count, sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<std::size_t>(*host);
}

SumBelow sum_below(const double* d_values, std::size_t n, double t, DeviceArray<char>& temp,
                   DeviceArray<SumBelow>& result, PinnedArray<SumBelow>& staged, cudaStream_t stream) {
  const auto below = thrust::make_transform_iterator(d_values, BelowOf{t});
  SumBelow* d_result = result.reserve(1);
  with_temp(temp, [&](void* scratch, std::size_t& bytes) {
    return cub::DeviceReduce::Reduce(scratch, bytes, below, d_result, static_cast<std::int64_t>(n), AddBelow{},
                                     SumBelow{}, stream);
  });
  SumBelow* host = staged.reserve(1);
  CUDA_CHECK(cudaMemcpyAsync(host, d_result, sizeof(SumBelow), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return *host;
}

void sort_values(const double* d_in, double* d_out, std::size_t n, DeviceArray<char>& temp, cudaStream_t stream) {
  with_temp(temp, [&](void* scratch, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(scratch, bytes, d_in, d_out, static_cast<std::int64_t>(n), 0,
                                          static_cast<int>(sizeof(double) * 8), stream);
  });
}

}  // namespace robustfit::regression::cuda
