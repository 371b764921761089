#pragma once
// Consistency and small-sample correction factors of the LTS scale, as robustbase 0.95
// (ltsReg's raw and reweighted scale; LTScnp2, LTScnp2.rew) and the normal quantiles used.
#include <cstddef>

namespace robustfit::regression::detail {

double qnorm(double probability);  // standard normal quantile
double dnorm(double x);            // standard normal density

// Consistency factor of a trimmed-squares scale covering `covered` of n points under
// normal errors: 1 / sqrt(1 - (2n)/(covered/q) * dnorm(q)), q = qnorm((covered + n) / (2n)).
double trimmed_scale_consistency(double covered, std::size_t n);

// robustbase::LTScnp2 / LTScnp2.rew: small-sample corrections of the raw and reweighted
// LTS scale. p counts the intercept when `intercept`.
double lts_small_sample_raw(std::size_t p, bool intercept, std::size_t n, double alpha);
double lts_small_sample_reweighted(std::size_t p, bool intercept, std::size_t n, double alpha);

}  // namespace robustfit::regression::detail
