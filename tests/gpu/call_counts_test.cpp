// What a warm selection call asks of the CUDA runtime (cuda_check.cuh's call_counts, which
// bench_selection_bench reports per row for issue 11): the one-launch forms are one kernel and
// one host synchronisation, as docs/SELECTION.md says of them, and stay so unless someone means
// to change it. The classification of checked calls by their source text is checked when this
// file compiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "selection/src/cuda/checked_select.cuh"
#include "selection/src/cuda/cuda_check.cuh"
#include "selection/src/cuda/sampled_multi_select.cuh"

namespace {

namespace detail = robustfit::selection::cuda::detail;
using detail::CallKind;
using detail::call_kind;
using robustfit::data::Distribution;
using robustfit::selection::cuda::Workspace;
using robustfit::testing::DeviceVector;

static_assert(call_kind("cudaStreamSynchronize(stream)") == CallKind::sync);
static_assert(call_kind("cudaDeviceSynchronize()") == CallKind::sync);
static_assert(call_kind("cudaMemsetAsync(d_counters, 0, sizeof *d_counters, stream)") == CallKind::memset);
static_assert(call_kind("cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, stream)") == CallKind::copy);
static_assert(call_kind("cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, n)") == CallKind::cub);
static_assert(call_kind("cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out, n)") == CallKind::other);
static_assert(call_kind("cudaLaunchCooperativeKernel(kernel, grid, block, args, 0, stream)") == CallKind::launch);
static_assert(call_kind("cudaGetLastError()") == CallKind::other);
static_assert(call_kind("cudaMalloc(&ptr, request)") == CallKind::other);

struct Expected {
  unsigned long long launches, cub_calls, memsets, copies, host_syncs;
};

// The counts of the second of two calls of `call` (the first warms the workspace up).
template <class Call>
void expect_counts(Call&& call, const Expected& e, const char* what) {
  call();
  const detail::CallCounts before = detail::call_counts();
  call();
  const detail::CallCounts got = detail::call_counts() - before;
  EXPECT_EQ(got.launches, e.launches) << what;
  EXPECT_EQ(got.cub_calls, e.cub_calls) << what;
  EXPECT_EQ(got.memsets, e.memsets) << what;
  EXPECT_EQ(got.copies, e.copies) << what;
  EXPECT_EQ(got.host_syncs, e.host_syncs) << what;
}

TEST(GpuCallCounts, OneLaunchFormsAreOneKernelAndOneWait) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Workspace workspace;
  const std::size_t small = std::size_t{1} << 20, medium = std::size_t{1} << 22;
  const auto values = robustfit::data::make_distribution<float>(Distribution::uniform, medium, 5);
  const DeviceVector<float> device(values);
  std::vector<float> sorted = values;
  std::sort(sorted.begin(), sorted.end());

  // Radix select's shared-memory form (2^20 floats): its counters zeroed by the kernel.
  expect_counts([&] { detail::radix_select_checked<float>(device.get(), small, small / 2, {}, workspace, nullptr); },
                {1, 0, 0, 0, 1}, "radix, resident");
  // The one-launch bracket: its counters zeroed by a memset before the launch.
  expect_counts([&] { detail::bracket_select_checked<float>(device.get(), medium, medium / 2, {}, workspace, nullptr); },
                {1, 0, 1, 0, 1}, "bracket, one launch");
  // The band table in one launch, 101 ranks: the ranks in the kernel's parameter, the answers
  // written to pinned host memory by the kernel.
  std::vector<std::size_t> ks(101);
  for (std::size_t i = 0; i < ks.size(); ++i) ks[i] = i * (medium - 1) / 100;
  std::vector<float> out(ks.size());
  expect_counts(
      [&] {
        detail::sampled_multi_select_checked<float>(device.get(), medium, ks.data(), ks.size(), out.data(), {},
                                                    workspace, nullptr);
      },
      {1, 0, 0, 0, 1}, "sampled multiselection, band one launch");
  for (std::size_t i = 0; i < ks.size(); ++i) ASSERT_EQ(out[i], sorted[ks[i]]) << "rank " << ks[i];
}

}  // namespace
