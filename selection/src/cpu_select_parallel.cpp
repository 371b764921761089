// kth_smallest_parallel: the sampled-bracket selection over fixed row chunks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "select_branch_free.hpp"

namespace robustfit::selection {
namespace {

// Regular sample of the values, and the margin (in sample ranks) that brackets a rank of the
// full data with near certainty for data in any non-adversarial order (8 sigma).
constexpr std::size_t kSample = 65536;
constexpr std::size_t kMargin = 1024;

template <class T>
struct Bracket {
  T low, high;
};

// Sample order statistics around k's place; -inf / +inf where the margin runs off the sample
// (or for a NaN in the sample: the pass over all values then finds it).
template <class T>
Bracket<T> bracket_rank(std::span<const T> values, std::size_t k) {
  const std::size_t n = values.size(), s = std::min(kSample, n);
  std::vector<T> sample(2 * s);  // the sample, then room for the branch-free selection
  for (std::size_t i = 0; i < s; ++i) sample[i] = values[i * n / s];
  const std::size_t centre = static_cast<std::size_t>(static_cast<double>(k) / static_cast<double>(n) * static_cast<double>(s));
  constexpr T inf = std::numeric_limits<T>::infinity();
  Bracket<T> bracket{-inf, inf};
  if (std::any_of(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(s), [](T v) { return std::isnan(v); })) return bracket;
  // The sample's order statistics (values, whatever the method): the branch-free selection costs
  // a fraction of std::nth_element's on 65536 values (FAST-MCD's C-steps on all rows).
  if (centre + kMargin < s) bracket.high = detail::select_branch_free(sample.data(), sample.data() + s, s, centre + kMargin);
  if (centre >= kMargin) {
    for (std::size_t i = 0; i < s; ++i) sample[i] = values[i * n / s];
    bracket.low = detail::select_branch_free(sample.data(), sample.data() + s, s, centre - kMargin);
  }
  return bracket;
}

}  // namespace

template <class T>
T kth_smallest_parallel(std::span<const T> values, std::size_t k) {
  const std::size_t n = values.size(), chunks = common::row_chunk_count(n);
  if (chunks == 1 || k >= n) return kth_smallest<T>(values, k);
  const Bracket<T> bracket = bracket_rank(values, k);
  std::vector<std::size_t> below(chunks), inside(chunks);
  std::vector<std::uint8_t> nan(chunks);
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::size_t low = 0, in = 0;
    bool any_nan = false;
    for (std::size_t i = begin; i < end; ++i) {
      const T v = values[i];
      low += v < bracket.low;
      in += v >= bracket.low && v <= bracket.high;
      any_nan = any_nan || std::isnan(v);
    }
    below[c] = low;
    inside[c] = in;
    nan[c] = any_nan;
  });
  std::size_t low = 0, in = 0;
  for (std::size_t c = 0; c < chunks; ++c) low += below[c], in += inside[c];
  const bool bracketed = low <= k && k < low + in;
  if (!bracketed || std::find(nan.begin(), nan.end(), 1) != nan.end()) return kth_smallest<T>(values, k);
  // The order statistics low .. low + in - 1 are the values inside the bracket.
  std::vector<T> candidates(2 * in);  // the values inside, then room for the selection
  std::vector<std::size_t> offsets(chunks, 0);
  std::partial_sum(inside.begin(), inside.end() - 1, offsets.begin() + 1);
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    T* out = candidates.data() + offsets[c];
    for (std::size_t i = begin; i < end; ++i)
      if (values[i] >= bracket.low && values[i] <= bracket.high) *out++ = values[i];
  });
  return detail::select_branch_free(candidates.data(), candidates.data() + in, in, k - low);
}

template float kth_smallest_parallel<float>(std::span<const float>, std::size_t);
template double kth_smallest_parallel<double>(std::span<const double>, std::size_t);

}  // namespace robustfit::selection
