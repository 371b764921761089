// kth_smallest_parallel: the sampled-bracket selection over fixed row chunks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "robustfit/common/parallel.hpp"
#include "robustfit/common/target_clones.hpp"
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

// A chunk's count of values below and inside [low, high] and whether it holds a NaN (branch-free,
// vectorised), and the copy of those inside in order, skipping blocks of eight with none inside
// (a few per cent are): for AVX2 and the baseline (target_clones.hpp).
#define ROBUSTFIT_CHUNK_PASSES(T)                                                                          \
  ROBUSTFIT_TARGET_CLONES void count_chunk(const T* v, std::size_t n, T low, T high, std::size_t& below,   \
                                           std::size_t& inside, bool& nan) {                              \
    std::size_t b = 0, in = 0, nans = 0;                                                                   \
    for (std::size_t i = 0; i < n; ++i) {                                                                  \
      b += v[i] < low;                                                                                     \
      in += (v[i] >= low) & (v[i] <= high);                                                                \
      nans += v[i] != v[i];                                                                                \
    }                                                                                                      \
    below = b;                                                                                             \
    inside = in;                                                                                           \
    nan = nans > 0;                                                                                        \
  }                                                                                                        \
  ROBUSTFIT_TARGET_CLONES void copy_chunk_inside(const T* v, std::size_t n, T low, T high, T* out) {       \
    std::size_t i = 0;                                                                                     \
    for (; i + 8 <= n; i += 8) {                                                                           \
      bool any = false;                                                                                    \
      for (std::size_t u = 0; u < 8; ++u) any |= (v[i + u] >= low) & (v[i + u] <= high);                   \
      if (!any) continue;                                                                                  \
      for (std::size_t u = 0; u < 8; ++u)                                                                  \
        if (v[i + u] >= low && v[i + u] <= high) *out++ = v[i + u];                                        \
    }                                                                                                      \
    for (; i < n; ++i)                                                                                     \
      if (v[i] >= low && v[i] <= high) *out++ = v[i];                                                      \
  }
ROBUSTFIT_CHUNK_PASSES(float)
ROBUSTFIT_CHUNK_PASSES(double)
#undef ROBUSTFIT_CHUNK_PASSES

}  // namespace

template <class T>
T kth_smallest_parallel(std::span<const T> values, std::size_t k) {
  const std::size_t n = values.size(), chunks = common::row_chunk_count(n);
  if (chunks == 1 || k >= n) return kth_smallest<T>(values, k);
  const Bracket<T> bracket = bracket_rank(values, k);
  std::vector<std::size_t> below(chunks), inside(chunks);
  std::vector<std::uint8_t> nan(chunks);
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    bool any_nan = false;
    count_chunk(values.data() + begin, end - begin, bracket.low, bracket.high, below[c], inside[c], any_nan);
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
    copy_chunk_inside(values.data() + begin, end - begin, bracket.low, bracket.high, candidates.data() + offsets[c]);
  });
  return detail::select_branch_free(candidates.data(), candidates.data() + in, in, k - low);
}

template float kth_smallest_parallel<float>(std::span<const float>, std::size_t);
template double kth_smallest_parallel<double>(std::span<const double>, std::size_t);

}  // namespace robustfit::selection
