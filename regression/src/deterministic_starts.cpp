#include "deterministic_starts.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

#include "least_squares.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"

namespace robustfit::regression::detail {
namespace {

double median_of(std::vector<double> values) {
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)));
}

// (v - median) / scale squared, added to `out`; nothing when v has no spread.
void add_standardised_squares(const Eigen::VectorXd& v, Eigen::VectorXd& out) {
  std::vector<double> values(v.data(), v.data() + v.size());
  const double center = median_of(values);
  for (double& value : values) value = std::abs(value - center);
  double scale = median_of(values);
  if (!(scale > 0)) scale = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  if (!(scale > 0)) return;
  out += ((v.array() - center) / scale).square().matrix();
}

// Above this many rows the starts come from an evenly strided subsample of this size: they are
// only starts (C-steps on all the data follow), and on all rows their medians, selections and
// LS fits cost ~0.5 s at n = 10^6, p = 10 on the host (the H200 bench), twice the GPU fit.
constexpr Eigen::Index kMaxRows = 20000;

Eigen::MatrixXd starts_on(const ModelData& data, std::size_t h);

}  // namespace

Eigen::MatrixXd deterministic_starts(const ModelData& data, std::size_t h) {
  const Eigen::Index n = data.X.rows();
  if (n <= kMaxRows) return starts_on(data, h);
  ModelData sample;
  sample.intercept = data.intercept;
  sample.X.resize(kMaxRows, data.X.cols());
  sample.y.resize(kMaxRows);
  for (Eigen::Index i = 0; i < kMaxRows; ++i) {
    const Eigen::Index row = i * n / kMaxRows;  // rows 0, n/m, 2n/m, ...: deterministic, spread
    sample.X.row(i) = data.X.row(row);
    sample.y(i) = data.y(row);
  }
  // The same coverage fraction on the subsample.
  const auto scaled = static_cast<std::size_t>(std::llround(static_cast<double>(h) * kMaxRows / static_cast<double>(n)));
  return starts_on(sample, std::max<std::size_t>(scaled, 1));
}

namespace {

Eigen::MatrixXd starts_on(const ModelData& data, std::size_t h) {
  const Eigen::Index n = data.X.rows(), p = data.X.cols();
  Eigen::VectorXd x_part = Eigen::VectorXd::Zero(n), y_part = Eigen::VectorXd::Zero(n);
  for (Eigen::Index j = data.intercept ? 1 : 0; j < p; ++j) add_standardised_squares(data.X.col(j), x_part);
  add_standardised_squares(data.y, y_part);
  const Eigen::VectorXd measures[] = {x_part, x_part + y_part, y_part};
  std::vector<Eigen::VectorXd> fits;
  for (const Eigen::VectorXd& measure : measures) {
    for (const std::size_t size : {h, (h + 1) / 2}) {
      if (size <= static_cast<std::size_t>(p)) continue;
      const auto rows = selection::smallest_h(std::span<const double>(measure.data(), static_cast<std::size_t>(n)), size).rows;
      if (auto beta = ls_on_rows(data.X, data.y, rows)) fits.push_back(std::move(*beta));
    }
  }
  Eigen::MatrixXd starts(p, static_cast<Eigen::Index>(fits.size()));
  for (std::size_t j = 0; j < fits.size(); ++j) starts.col(static_cast<Eigen::Index>(j)) = fits[j];
  return starts;
}

}  // namespace

}  // namespace robustfit::regression::detail
