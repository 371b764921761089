#include "consistency.hpp"

#include <array>
#include <boost/math/distributions/normal.hpp>
#include <cmath>

namespace robustfit::regression::detail {

double qnorm(double probability) {
  return boost::math::quantile(boost::math::normal_distribution<double>(), probability);
}

double dnorm(double x) { return boost::math::pdf(boost::math::normal_distribution<double>(), x); }

double trimmed_scale_consistency(double covered, std::size_t n) {
  const double nd = static_cast<double>(n);
  // Nothing trimmed (alpha = 1, h = n): the limit as covered -> n is 1 (q -> infinity, q phi(q) -> 0);
  // qnorm(1) itself overflows. robustbase reports raw.cnp2 = 1 there too.
  if (covered >= nd) return 1;
  const double q = qnorm((covered + nd) / (2 * nd));
  return 1 / std::sqrt(1 - (2 * nd) / (covered / q) * dnorm(q));
}

namespace {

// The tabulated fits of robustbase: f(n) = 1 - exp(a) / n^b at alpha = 0.5 and 0.875.
struct PowerFit {
  double a, b;
  double at(double n) const { return 1 - std::exp(a) / std::pow(n, b); }
};

// For q >= 2 slopes: fits at q = 3 and q = 5 interpolated in log(q^2) (robustbase's
// coefgqpkwad/coefeqpkwad matrices: rows (-c, power, q)).
struct TwoPointFit {
  double c3, e3, c5, e5;
  PowerFit at(double q) const {
    const double y3 = std::log(-c3 / std::pow(q, e3)), y5 = std::log(-c5 / std::pow(q, e5));
    const double x3 = -std::log(3 * q * q), x5 = -std::log(5 * q * q);
    // Solve [1 x3; 1 x5] (a, b) = (y3, y5).
    const double b = (y3 - y5) / (x3 - x5);
    return {y3 - b * x3, b};
  }
};

double interpolate_alpha(double f500, double f875, double alpha) {
  return alpha <= 0.875 ? f500 + (f875 - f500) / 0.375 * (alpha - 0.5)
                        : f875 + (1 - f875) / 0.125 * (alpha - 0.875);
}

struct CorrectionTable {
  PowerFit q0_500, q0_875;                        // location only
  PowerFit q1_500_int, q1_875_int, q1_500, q1_875;  // one slope, with / without intercept
  TwoPointFit qk_500_int, qk_875_int, qk_500, qk_875;
};

double correction(const CorrectionTable& t, std::size_t p, bool intercept, std::size_t n_, double alpha) {
  const std::size_t q = intercept ? p - 1 : p;
  const double n = static_cast<double>(n_);
  double f;
  if (q == 0) {
    f = interpolate_alpha(t.q0_500.at(n), t.q0_875.at(n), alpha);
    f = std::sqrt(f);
  } else if (q == 1) {
    f = intercept ? interpolate_alpha(t.q1_500_int.at(n), t.q1_875_int.at(n), alpha)
                  : interpolate_alpha(t.q1_500.at(n), t.q1_875.at(n), alpha);
  } else {
    const double qd = static_cast<double>(q);
    const PowerFit f500 = (intercept ? t.qk_500_int : t.qk_500).at(qd);
    const PowerFit f875 = (intercept ? t.qk_875_int : t.qk_875).at(qd);
    f = interpolate_alpha(f500.at(n), f875.at(n), alpha);
  }
  return 1 / f;
}

const CorrectionTable kRaw{
    {0.262024211897096, 0.604756680630497},     {-0.351584646688712, 1.01646567502486},
    {0.630869217886906, 0.650789250442946},     {0.565065391014791, 1.03044199012509},
    {-0.0181777452315321, 0.697629772271099},   {-0.310122738776431, 1.06241615923172},
    {-0.746945886714663, 0.56264937192689, -0.535478048924724, 0.543323462033445},
    {-0.458580153984614, 1.12236071104403, -0.267178168108996, 1.1022478781154},
    {-0.487338281979106, 0.405511279418594, -0.340762058011, 0.37972360544988},
    {-0.251778730491252, 0.883966931611758, -0.146660023184295, 0.86292940340761}};

const CorrectionTable kReweighted{
    {1.11098143415027, 1.5182890270453},        {-0.66046776772861, 0.88939595831888},
    {1.58609654199605, 1.46340162526468},       {0.391653958727332, 1.03167487483316},
    {0.6329852387657, 1.40361879788014},        {-0.642240988645469, 0.926325452943084},
    {-0.773365715932083, 2.02013996406346, -0.337571678986723, 2.02037467454833},
    {-0.474174840843602, 1.39681715704956, -0.276640353112907, 1.42543242287677},
    {-0.417574780492848, 1.83958876341367, -0.175753709374146, 1.8313809497999},
    {-0.267522855927958, 1.17559984533974, -0.161200683014406, 1.21675019853961}};

}  // namespace

double lts_small_sample_raw(std::size_t p, bool intercept, std::size_t n, double alpha) {
  return correction(kRaw, p, intercept, n, alpha);
}

double lts_small_sample_reweighted(std::size_t p, bool intercept, std::size_t n, double alpha) {
  return correction(kReweighted, p, intercept, n, alpha);
}

}  // namespace robustfit::regression::detail
