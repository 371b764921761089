#pragma once
// A fit whose per-row arrays are long (several row chunks of common/parallel.hpp) for the
// reports' byte-for-byte tests.
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "robustfit/data/design.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::testing {

// Rows enough for several row chunks (common::kMinChunkRows is 32768).
inline constexpr std::size_t kManyRows = 100000;

// A fit with every per-row array long (several chunks): FAST-LTS on generated data, robust
// distances put in by hand with NaN and infinities among them.
struct GeneratedFit {
  data::Design design;
  regression::FitResult fit;
  GeneratedFit() {
    const std::size_t n = kManyRows;
    std::mt19937_64 random(9);
    std::normal_distribution<double> normal;
    design.X.resize(static_cast<Eigen::Index>(n), 2);
    design.y.resize(static_cast<Eigen::Index>(n));
    for (Eigen::Index i = 0; i < design.y.size(); ++i) {
      design.X(i, 0) = normal(random);
      design.X(i, 1) = normal(random);
      design.y(i) = 1 + 2 * design.X(i, 0) - design.X(i, 1) + normal(random) + (i % 5 == 0 ? 50 : 0);
      design.data_rows.push_back(static_cast<std::size_t>(i) * 3 + 2);  // rows dropped between
    }
    design.response = std::string("y");  // not = "y": a GCC 12 -Wrestrict false positive
    design.predictors = {"x1", "x \"2\""};
    design.dropped_rows = 2 * n;
    regression::LtsOptions options;
    options.subsets = 20;
    options.mcd = false;  // distances by hand below
    options.backend = regression::Backend::cpu;
    fit = regression::fit_lts(design.X, design.y, options);
    for (std::size_t i = 0; i < n; ++i) fit.robust_distances.push_back(std::abs(normal(random)) * 3);
    fit.robust_distances[1] = std::nan("");
    fit.robust_distances[2] = std::numeric_limits<double>::infinity();
    fit.robust_distances[3] = 0.0;
    fit.rd_cutoff = 2.7;
  }
};

}  // namespace robustfit::testing
