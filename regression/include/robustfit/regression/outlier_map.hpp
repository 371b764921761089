#pragma once
// Rousseeuw & van Zomeren's (1990) outlier map: each row classified by its standardized
// residual (residual / final scale, as robustbase's plot.lts) and its robust distance.
#include <span>
#include <string_view>
#include <vector>

#include "robustfit/regression/fit_result.hpp"

namespace robustfit::regression {

enum class OutlierClass {
  regular,           // |std resid| <= 2.5, RD <= cutoff
  vertical_outlier,  // |std resid| >  2.5, RD <= cutoff
  good_leverage,     // |std resid| <= 2.5, RD >  cutoff
  bad_leverage,      // |std resid| >  2.5, RD >  cutoff
};
std::string_view to_string(OutlierClass c);  // "regular", "vertical outlier", "good leverage", "bad leverage"

inline constexpr double kOutlierMapResidualCutoff = 2.5;

// Classes from standardized residuals and robust distances of equal length (throws
// std::invalid_argument otherwise, or for a cutoff that is not positive).
std::vector<OutlierClass> outlier_map(std::span<const double> standardized_residuals,
                                      std::span<const double> robust_distances, double rd_cutoff);

// The fit's classes; empty when fit.robust_distances is empty (MCD not run). With an exact fit
// (scale 0) a row is off the fit vertically when the fit flags it an outlier.
std::vector<OutlierClass> outlier_map(const FitResult& fit);

}  // namespace robustfit::regression
