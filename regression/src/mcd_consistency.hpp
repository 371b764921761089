#pragma once
// Consistency and small-sample correction factors of the MCD covariance, as robustbase 0.95
// (.MCDcons, .MCDcnp2, .MCDcnp2.rew), and the chi-square quantiles they use.
#include <cstddef>

namespace robustfit::regression::detail {

double qchisq(double probability, double df);

// .MCDcons(p, alpha): 1 / (pgamma(qchisq(alpha, p) / 2, p/2 + 1) / alpha), the factor that
// makes the covariance of the alpha-fraction of smallest distances consistent at the normal.
double mcd_consistency(std::size_t p, double alpha);

// .MCDcnp2 / .MCDcnp2.rew: small-sample corrections of the raw and the reweighted MCD
// covariance (Pison, Van Aelst & Willems 2002: fitted power laws at alpha = 0.5 and 0.875,
// simulated values for very small n at alpha = 0.5).
double mcd_small_sample_raw(std::size_t p, std::size_t n, double alpha);
double mcd_small_sample_reweighted(std::size_t p, std::size_t n, double alpha);

}  // namespace robustfit::regression::detail
