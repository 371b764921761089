// kth_smallest_bracketed: the sampled-bracket selection of kth_smallest_parallel, serial and
// without allocation, for one selection per task in a parallel loop (the CPU engine's C-steps).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "robustfit/common/target_clones.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "sample_bracket.hpp"
#include "select_branch_free.hpp"

namespace robustfit::selection {
namespace {

using detail::kMinBracketed;
using detail::sample_bracket;
using detail::sample_size;
using detail::take_sample;

// The counting and copying passes, for AVX2 and the baseline (target_clones.hpp). copy_inside
// stores every value (branch-free); copy_few_inside skips blocks of eight without a value inside,
// faster when few are (a C-step's bracket from its last threshold): the same copy either way.
#define ROBUSTFIT_BRACKET_PASSES(T)                                                                        \
  ROBUSTFIT_TARGET_CLONES void count_outside(const T* v, std::size_t n, T low, T high, std::size_t& below, \
                                             std::size_t& above) {                                        \
    std::size_t b = 0, a = 0;                                                                              \
    for (std::size_t i = 0; i < n; ++i) {                                                                  \
      b += v[i] < low;                                                                                     \
      a += v[i] > high;                                                                                    \
    }                                                                                                      \
    below = b;                                                                                             \
    above = a;                                                                                             \
  }                                                                                                        \
  ROBUSTFIT_TARGET_CLONES std::size_t copy_inside(const T* v, std::size_t n, T low, T high, T* out) {      \
    std::size_t inside = 0;                                                                                \
    for (std::size_t i = 0; i < n; ++i) {                                                                  \
      out[inside] = v[i];                                                                                  \
      inside += (v[i] >= low) & (v[i] <= high);                                                            \
    }                                                                                                      \
    return inside;                                                                                         \
  }                                                                                                        \
  ROBUSTFIT_TARGET_CLONES std::size_t copy_few_inside(const T* v, std::size_t n, T low, T high, T* out) {  \
    std::size_t inside = 0, i = 0;                                                                         \
    for (; i + 8 <= n; i += 8) {                                                                           \
      bool any = false;                                                                                    \
      for (std::size_t u = 0; u < 8; ++u) any |= (v[i + u] >= low) & (v[i + u] <= high);                   \
      if (!any) continue;                                                                                  \
      for (std::size_t u = 0; u < 8; ++u) {                                                                \
        out[inside] = v[i + u];                                                                            \
        inside += (v[i + u] >= low) & (v[i + u] <= high);                                                  \
      }                                                                                                    \
    }                                                                                                      \
    for (; i < n; ++i) {                                                                                   \
      out[inside] = v[i];                                                                                  \
      inside += (v[i] >= low) & (v[i] <= high);                                                            \
    }                                                                                                      \
    return inside;                                                                                         \
  }
ROBUSTFIT_BRACKET_PASSES(float)
ROBUSTFIT_BRACKET_PASSES(double)
#undef ROBUSTFIT_BRACKET_PASSES

template <class T>
T select_copy(std::span<const T> values, std::size_t k, std::vector<T>& scratch) {
  const std::size_t n = values.size();
  if (n == 0 || k >= n || std::any_of(values.begin(), values.end(), [](T v) { return std::isnan(v); })) {
    scratch.assign(values.begin(), values.end());
    return kth_smallest_inplace<T>(std::span<T>(scratch.data(), n), k);  // names the error
  }
  if (scratch.size() < 2 * n) scratch.resize(2 * n);
  std::copy(values.begin(), values.end(), scratch.begin());
  return detail::select_branch_free(scratch.data(), scratch.data() + n, n, k);
}

// The k-th smallest when [low, high] brackets rank k with at most `most_inside` values inside
// (one counting pass, one copying pass, a selection among those inside); nullopt otherwise,
// and for a NaN (then nothing is below, above or inside it).
template <class T>
std::optional<T> select_in_bracket(std::span<const T> values, std::size_t k, T low, T high, std::size_t most_inside,
                                   std::vector<T>& scratch) {
  const std::size_t n = values.size();
  std::size_t below = 0, above = 0;
  count_outside(values.data(), n, low, high, below, above);
  if (below + above > n || k < below || k >= n - above || n - below - above > most_inside) return std::nullopt;
  const std::size_t most = n - below - above;
  if (scratch.size() < n + most) scratch.resize(n + most);
  T* out = scratch.data();
  const std::size_t inside = most * 32 < n ? copy_few_inside(values.data(), n, low, high, out)
                                           : copy_inside(values.data(), n, low, high, out);
  if (below + above + inside != n) return std::nullopt;
  return detail::select_branch_free(out, out + n, inside, k - below);
}

}  // namespace

template <class T>
T kth_smallest_bracketed(std::span<const T> values, std::size_t k, std::vector<T>& scratch, T guess_low, T guess_high) {
  if (values.size() >= kMinBracketed && k < values.size() && guess_low <= guess_high)
    if (const auto t = select_in_bracket(values, k, guess_low, guess_high, values.size() / 8, scratch)) return *t;
  return kth_smallest_bracketed(values, k, scratch);
}

template <class T>
T kth_smallest_bracketed(std::span<const T> values, std::size_t k, std::vector<T>& scratch) {
  const std::size_t n = values.size();
  if (n < kMinBracketed || k >= n) return select_copy(values, k, scratch);
  const std::size_t s = sample_size(n);
  if (scratch.size() < n) scratch.resize(n);
  if (!take_sample(values, s, scratch.data())) return select_copy(values, k, scratch);  // kth_smallest_inplace names the NaN
  const auto [low, high] = sample_bracket(scratch.data(), s, n, k, k);
  // One counting pass (vectorised) and one branch-free copying pass.
  if (const auto t = select_in_bracket(values, k, low, high, n, scratch)) return *t;
  return select_copy(values, k, scratch);  // missed, or a NaN (named there)
}

template <class T>
std::vector<T> kth_smallest_many_bracketed(std::span<const T> values, std::span<const std::size_t> ks) {
  const std::size_t n = values.size();
  if (n < kMinBracketed || ks.empty() || std::any_of(ks.begin(), ks.end(), [&](std::size_t k) { return k >= n; }))
    return kth_smallest_many(values, ks);  // small, or its errors
  const auto [lowest, highest] = std::minmax_element(ks.begin(), ks.end());
  const std::size_t k_low = *lowest, k_high = *highest;
  // One bracket around all ranks: below the lowest rank's sample place, above the highest's.
  const std::size_t s = sample_size(n);
  std::vector<T> sample(s);
  if (!take_sample(values, s, sample.data())) return kth_smallest_many(values, ks);  // names the NaN
  const auto [low, high] = sample_bracket(sample.data(), s, n, k_low, k_high);
  std::size_t below = 0, above = 0;
  count_outside(values.data(), n, low, high, below, above);
  if (below + above > n || k_low < below || k_high >= n - above) return kth_smallest_many(values, ks);
  // copy_inside writes one place past the last value inside.
  std::vector<T> inside(n - below - above + 1);
  const std::size_t kept = copy_inside(values.data(), n, low, high, inside.data());
  if (below + above + kept != n) return kth_smallest_many(values, ks);  // a NaN (named there)
  std::vector<std::size_t> shifted(ks.begin(), ks.end());
  for (std::size_t& k : shifted) k -= below;
  return kth_smallest_many(std::span<const T>(inside.data(), kept), std::span<const std::size_t>(shifted));
}

template std::vector<float> kth_smallest_many_bracketed<float>(std::span<const float>, std::span<const std::size_t>);
template std::vector<double> kth_smallest_many_bracketed<double>(std::span<const double>, std::span<const std::size_t>);
template float kth_smallest_bracketed<float>(std::span<const float>, std::size_t, std::vector<float>&);
template double kth_smallest_bracketed<double>(std::span<const double>, std::size_t, std::vector<double>&);
template float kth_smallest_bracketed<float>(std::span<const float>, std::size_t, std::vector<float>&, float, float);
template double kth_smallest_bracketed<double>(std::span<const double>, std::size_t, std::vector<double>&, double, double);

}  // namespace robustfit::selection
