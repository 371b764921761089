#pragma once
// RowReductions of one process whose heavy calls run on the GPU (issue 10): the finish of an
// LTS / LMS fit on the CUDA engine and FAST-MCD's passes over all rows select, compact and sort
// on the device instead of the host. Every answer equals the base class's: row lists and order
// statistics exactly, window scans bit for bit (the device sorts, the host scans the sorted
// values: an 8 MB download at 10^6 rows costs well under a millisecond, a device scan would sum
// in another order), trimmed_sum to rounding (a CUB reduction: another summation order).
// Inputs below kDeviceReductionsMinRows rows stay on the host (a transfer and a launch cost more
// than the host's pass), and so does any call that fails on the device (out of memory, no
// device): the base class answers it, so a fit is never lost. Calls from several threads take
// turns on the device (one stream, one set of buffers); LMS's refinement, which calls from many
// threads at once, keeps the host's reductions.
#include <cstddef>
#include <memory>
#include <optional>

#include "engine.hpp"
#include "row_reductions.hpp"

namespace robustfit::regression::cuda {

// From this many rows on, the overrides below run on the device.
inline constexpr std::size_t kDeviceReductionsMinRows = std::size_t{1} << 16;
// local_factors runs on the device from this many rows x (p + 1)^2 on: where the host's TSQR
// takes a few tenths of a second (the H200 machine: ~7e-11 s per row and squared column, 0.9 s
// at 5 x 10^6 rows x 51), more than cuSOLVER's first call in a process costs.
inline constexpr std::size_t kDeviceFactorsMinWork = std::size_t{1} << 32;

class DeviceRowReductions final : public detail::RowReductions {
 public:
  // Creates the stream; with no usable device every call runs on the host. `design`: an engine's
  // [X y] on the device (valid while this object lives), where local_factors may factor rows of
  // that X from `factors_min_work` rows x (p + 1)^2 on.
  explicit DeviceRowReductions(std::optional<detail::DeviceDesign> design = std::nullopt,
                               std::size_t factors_min_work = kDeviceFactorsMinWork);
  ~DeviceRowReductions() override;
  DeviceRowReductions(const DeviceRowReductions&) = delete;
  DeviceRowReductions& operator=(const DeviceRowReductions&) = delete;

  std::vector<std::size_t> smallest_h(const Eigen::VectorXd& values, std::size_t h) const override;
  double trimmed_sum(const Eigen::VectorXd& values, std::size_t h) const override;
  double min_window_variance(const Eigen::VectorXd& values, std::size_t h) const override;
  std::vector<double> kth_smallest_many(const Eigen::VectorXd& values, std::span<const std::size_t> ks) const override;
  std::optional<detail::ShortestWindow> shortest_window_below(const Eigen::VectorXd& values, std::size_t h,
                                                              double bound) const override;
  detail::VarianceWindowScan min_variance_window(const Eigen::VectorXd& values, std::size_t h, double shift) const override;
  // The R factor by cuSOLVER (device_row_factors.hpp) when X and y are the design's host copies
  // and the work is large enough; else the host's TSQR.
  Eigen::MatrixXd local_factors(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                std::span<const std::size_t> rows) const override;

  // Calls answered by the device, and calls that failed there and went to the host (tests).
  std::size_t device_calls() const;
  std::size_t fallbacks() const;

  struct State;  // stream and pinned staging, kept for the next object of the process (a small pool)

 private:
  // Runs `device` when n is large enough and a device is set up, else (or when it throws) `host`.
  template <class Device, class Host>
  auto on_device(std::size_t n, Device&& device, Host&& host) const;

  std::unique_ptr<State> state_;  // null without a usable device
  std::optional<detail::DeviceDesign> design_;
  std::size_t factors_min_work_;
};

}  // namespace robustfit::regression::cuda
