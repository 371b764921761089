#include "robustfit/regression/outlier_map.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace robustfit::regression {

namespace {

OutlierClass classify(bool vertical, bool leverage) {
  if (leverage) return vertical ? OutlierClass::bad_leverage : OutlierClass::good_leverage;
  return vertical ? OutlierClass::vertical_outlier : OutlierClass::regular;
}

void check(std::size_t residuals, std::size_t distances, double rd_cutoff) {
  if (residuals != distances)
    throw std::invalid_argument("outlier map: " + std::to_string(residuals) + " standardized residuals but " +
                                std::to_string(distances) + " robust distances");
  if (!(rd_cutoff > 0)) throw std::invalid_argument("outlier map: the robust distance cutoff must be positive");
}

}  // namespace

std::string_view to_string(OutlierClass c) {
  switch (c) {
    case OutlierClass::regular: return "regular";
    case OutlierClass::vertical_outlier: return "vertical outlier";
    case OutlierClass::good_leverage: return "good leverage";
    case OutlierClass::bad_leverage: return "bad leverage";
  }
  return "";
}

std::vector<OutlierClass> outlier_map(std::span<const double> standardized_residuals,
                                      std::span<const double> robust_distances, double rd_cutoff) {
  check(standardized_residuals.size(), robust_distances.size(), rd_cutoff);
  std::vector<OutlierClass> classes(robust_distances.size());
  for (std::size_t i = 0; i < classes.size(); ++i)
    classes[i] = classify(std::abs(standardized_residuals[i]) > kOutlierMapResidualCutoff,
                          robust_distances[i] > rd_cutoff);
  return classes;
}

std::vector<OutlierClass> outlier_map(const FitResult& fit) {
  if (fit.robust_distances.empty()) return {};
  const auto n = static_cast<std::size_t>(fit.standardized_residuals.size());
  if (fit.scale > 0)
    return outlier_map({fit.standardized_residuals.data(), n}, fit.robust_distances, fit.rd_cutoff);
  check(n, fit.robust_distances.size(), fit.rd_cutoff);
  std::vector<OutlierClass> classes(n);
  for (std::size_t i = 0; i < n; ++i) classes[i] = classify(fit.outlier[i], fit.robust_distances[i] > fit.rd_cutoff);
  return classes;
}

}  // namespace robustfit::regression
