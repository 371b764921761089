// Fits Brownlee's stackloss data by Least Trimmed Squares through the installed robust-fit
// package, with the CLI's defaults (alpha 0.5, 500 subsets, seed 0).
// Usage: fit_stackloss path/to/stackloss.csv
#include <cstdio>
#include <exception>

#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/estimators.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s stackloss.csv\n", argv[0]);
    return 2;
  }
  try {
    namespace rf = robustfit;
    const rf::data::Table table = rf::data::read_csv(argv[1]);
    const rf::data::Design design = rf::data::make_design(table, {.response = "stack.loss"});
    const rf::regression::FitResult fit = rf::regression::fit_lts(design.X, design.y);

    // 17 significant digits: the values round-trip, so they can be compared with the CLI's.
    std::printf("coefficient (Intercept) %.17g\n", fit.coefficients(0));
    for (std::size_t j = 0; j < design.predictors.size(); ++j)
      std::printf("coefficient %s %.17g\n", design.predictors[j].c_str(),
                  fit.coefficients(static_cast<Eigen::Index>(j) + 1));
    std::printf("scale %.17g\n", fit.scale);
    std::printf("outliers");
    for (std::size_t i = 0; i < fit.n; ++i)
      if (fit.outlier[i]) std::printf(" %zu", design.data_rows[i]);
    std::printf("\nbackend %s\n", fit.backend.c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fit_stackloss: %s\n", error.what());
    return 1;
  }
}
