#pragma once
// The local pieces of the distributed engine's exact sample sorts (distributed_reductions.cpp's
// sorted_block, distributed_window.cpp's shortest windows): each rank sorts its own values, sends
// one sorted run to every rank, and merges the runs it receives.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace robustfit::regression::detail {

// `values` sorted ascending into `sorted` (the same size): on this rank's GPU where `on_gpu` and
// the device can take them (cub::DeviceRadixSort, ~10 ms for 10^7 doubles with the transfers),
// else selection::sort_parallel on the host (~0.1-0.3 s). The same values in the same order,
// except that -0 and +0 (equal) may come in either order from the GPU. No NaN (as sort_parallel).
void sort_local(std::span<const double> values, std::span<double> sorted, bool on_gpu);

// The GPU half of sort_local: false where there is no device or no room (then `why`, if given,
// says what failed). Defined in cuda/device_sort.cpp, or no_cuda/ (always false).
bool sort_on_gpu(std::span<const double> values, std::span<double> sorted, std::string* why = nullptr);

// An all-to-all's receive of a sample sort (the sources' sorted runs one after another) as one
// ascending sequence. The maximal ascending runs are merged pairwise, the pairs of a round on
// the host's threads: log2(q) passes instead of a sort.
std::vector<double> merge_sorted_runs(std::vector<double> received);

}  // namespace robustfit::regression::detail
