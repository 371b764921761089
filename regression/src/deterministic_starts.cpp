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

std::vector<std::size_t> deterministic_sample_rows(std::size_t n) {
  std::vector<std::size_t> rows;
  const auto m = static_cast<std::size_t>(kMaxRows);
  if (n <= m) return rows;
  for (std::size_t i = 0; i < m; ++i) rows.push_back(i * n / m);  // rows 0, n/m, 2n/m, ...: deterministic, spread
  return rows;
}

Eigen::MatrixXd deterministic_starts_of_sample(const ModelData& sample, std::size_t h, std::size_t n) {
  if (n <= static_cast<std::size_t>(kMaxRows)) return starts_on(sample, h);
  // The same coverage fraction on the subsample.
  const auto scaled = static_cast<std::size_t>(std::llround(static_cast<double>(h) * kMaxRows / static_cast<double>(n)));
  return starts_on(sample, std::max<std::size_t>(scaled, 1));
}

Eigen::MatrixXd deterministic_starts(const ModelData& data, std::size_t h) {
  const std::vector<std::size_t> rows = deterministic_sample_rows(data.n());
  if (rows.empty()) return deterministic_starts_of_sample(data, h, data.n());
  ModelData sample;
  sample.intercept = data.intercept;
  sample.X.resize(static_cast<Eigen::Index>(rows.size()), data.X.cols());
  sample.y.resize(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    sample.X.row(static_cast<Eigen::Index>(i)) = data.X.row(static_cast<Eigen::Index>(rows[i]));
    sample.y(static_cast<Eigen::Index>(i)) = data.y(static_cast<Eigen::Index>(rows[i]));
  }
  return deterministic_starts_of_sample(sample, h, data.n());
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
