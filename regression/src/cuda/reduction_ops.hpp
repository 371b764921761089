#pragma once
// Raw-pointer GPU passes of DeviceRowReductions (device_row_reductions.hpp) over one vector of
// n doubles on the device: which rows lie at or below a threshold, the sum and count below it,
// and a sort. CUB inside, no Eigen. `temp` is CUB's scratch (grown as needed, kept);
// `result` a small device buffer; `staged` a pinned host buffer for the result (synchronises).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "device_array.hpp"

namespace robustfit::regression::cuda {

// The rows i with values[i] <= t, ascending, into d_rows (n entries); returns their count.
// n must fit an int32 (the caller checks). Synchronises.
std::size_t rows_at_most(const double* d_values, std::size_t n, double t, std::int32_t* d_rows, DeviceArray<char>& temp,
                         DeviceArray<std::int64_t>& result, PinnedArray<std::int64_t>& staged, cudaStream_t stream);

// sum_{values[i] < t} values[i] (one CUB reduction: a fixed order for a given n, not the host's)
// and #{values[i] < t}. Synchronises.
struct SumBelow {
  double sum = 0;
  std::int64_t count = 0;
};
SumBelow sum_below(const double* d_values, std::size_t n, double t, DeviceArray<char>& temp,
                   DeviceArray<SumBelow>& result, PinnedArray<SumBelow>& staged, cudaStream_t stream);

// d_out = d_in sorted ascending (cub::DeviceRadixSort; -0.0 and +0.0 count as equal, and equal
// values come in any order: only their values matter to the callers). Asynchronous.
void sort_values(const double* d_in, double* d_out, std::size_t n, DeviceArray<char>& temp, cudaStream_t stream);

}  // namespace robustfit::regression::cuda
