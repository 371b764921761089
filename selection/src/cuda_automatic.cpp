// The CUDA backend's automatic choice (H200 measurements unless said; bench/results/SELECTION.md
// and the result folders named below hold the rows):
//   one rank, k = 0 or k = n-1        -> the min/max/NaN reduction alone (one read pass)
//   one rank, n >= 2^26              -> Floyd–Rivest (one read of the input)
//   one rank, 2^22 < n < 2^26        -> bracket (Floyd–Rivest finished on the device, in one
//                                       cooperative launch: radix costs 1.6-18 x its uniform
//                                       time on ties there)
//   one rank, otherwise               -> radix (one cooperative launch up to 2^22 values)
//   many ranks                       -> up to 3 ranks, of which up to loop_ranks(n) other than
//                                       0 and n-1: the one-rank choice per rank; n >= kSampledMultiMinSize:
//                                       sampled multiselection up to kSampledMultiMaxRanks,
//                                       one sort beyond; smaller n: multi (bucketMultiSelect)
//                                       for double or at most kMultiMaxFloatRanks float ranks,
//                                       else one sort
//   batched                          -> the batched bracket from 2^16 rows and 2^24 values,
//                                       else batched radix (sort only when asked for)
#include "robustfit/selection/cuda_automatic.hpp"

#include <algorithm>
#include <vector>

namespace robustfit::selection {
namespace {

// From here Floyd–Rivest. Below, the bracket's one launch with an 8192-key sample is the faster
// (2^25, uniform / normal: floats 118 / 114 against 131 / 134 us; doubles, finished in one block
// after the first digit, 186 / 184 against 210 / 210); from 2^26 the bracket's default sample is
// CUB-sorted and its launches separate (floats 186 against 172 us); at 2^27-2^28 its one launch
// with an 8192-key sample (3 sigmas) was within 6 % of Floyd–Rivest either way.
// bench/results/selection_one_launch_bracket_h200_2026-11-29 (calls e and g) and
// bench/results/selection_compact_finish_h200_2026-11-29 (calls b and c).
constexpr std::size_t kFloydRivestMinSize = std::size_t{1} << 26;
// Between the cooperative radix's sizes and Floyd–Rivest's: bracket selection, in one
// cooperative launch with a 2048-key sample (8192 from 2^25; bracket_one_launch.cu). 2026-11-29
// (bench/results/selection_one_launch_bracket_h200_2026-11-29), medians of 2^24 values: radix
// took 1.6-6 x (float) and 4-18 x (double) its uniform time on ties (float all equal 164 us,
// double 760 us), the bracket at most its uniform time; on uniform data it is the faster
// (float 88 against 110 us, double 138 against 198), on normal-like floats the same (83 / 94),
// on normal-like doubles the same (138 / 137); at 2^23 within 8 % of radix either way on smooth
// data and 2-7 x faster on ties. At 2^22 radix's one launch is the faster on smooth data (floats
// 46-51 against 62-65 us), the bracket on ties only.
constexpr std::size_t kBracketMinSize = (std::size_t{1} << 22) + 1;
constexpr std::size_t kMultiMaxFloatRanks = 128;  // 1001 float ranks: one sort was faster
// Many ranks, H200 2026-11-29 (bench/results/selection_band_multiselect_h200_2026-11-29, call c:
// sampled multiselection's band-table form against the one-rank choice per rank and one sort,
// uniform and normal-like, 2^20 to 2^26). Two interior ranks: per rank faster below 2^24
// (2^22 floats 90-97 against 115 us), sampled from 2^24 (floats 144-155 against 161-163 us,
// doubles even; 2^26 floats 280 against 325). Three: per rank faster below 2^22 only (2^20
// floats 88-98 against 99-111 us; 2^22 floats 134-143 against 115). 1001 ranks: sampled ahead
// of one sort from 2^24 for floats (345 against 473 us; 2^26 0.65-0.69 against 1.50 ms; at 2^22
// 211-218 against 195-198) and from 2^22 for doubles (273 against 406 us; at 2^20 235 against
// 191); 10001 ranks: one sort everywhere (2^26 floats 1.55 against 2.5 ms). Below 2^20 values
// the launches dominate (not measured since the band form). Since the band form's one launch
// (below 2^26 values, up to 1024 ranks; bench/results/selection_band_sums_h200_2026-12-03, call
// c), 1001 ranks are sampled ahead of one sort from 2^20 for both types: floats 2^20 96-104
// against 119-120 us, 2^22 126-127 against 215-218; doubles 2^20 125-129 against 193-198. On the
// adversarial set at 2^22 (call e) within 7 % of one sort on ties, faster on few huge values,
// slower on the bucket killer only (floats 284 against 182 us, doubles 442 against 397).
constexpr std::size_t kSampledMultiMinSize = std::size_t{1} << 20;
constexpr std::size_t kSampledMultiMaxRanks = 1024;

// At most kLoopRanks ranks, of which at most loop_ranks(n) other than 0 and n - 1 (each of those
// costs one reduction), are answered one at a time.
constexpr std::size_t kLoopRanks = 3;
std::size_t loop_ranks(std::size_t n) {
  if (n < (std::size_t{1} << 22)) return 3;
  return n < (std::size_t{1} << 24) ? 2 : 1;
}

// Batched: the sampled bracket reads the matrix once where batched radix reads it 3 (float) or
// 6 (double) times, but costs a sample sort per column and its own launches. 2026-11-23
// (bench/results/SELECTION.md, "Issue 11 round"): bracket wins from 2^16 rows once the matrix
// holds 2^24 values (512 x 2^20 float 1.75 -> 0.98 ms, double 5.75 -> 1.71 ms; 20 x 10^6 double
// 0.27 -> 0.17 ms; 4096 x 2^16 float 2.5 -> 1.1 ms) and loses below (64 x 2^16 float 0.051 vs
// 0.066 ms; 4096 x 2^12 float 0.097 vs 0.56 ms).
constexpr std::size_t kBatchedBracketMinColumnRows = std::size_t{1} << 16;
constexpr std::size_t kBatchedBracketMinValues = std::size_t{1} << 24;

std::string name_of_single(std::size_t n, std::size_t k) {
  const Algorithm algorithm = cuda_automatic_single(n, k);
  return algorithm == Algorithm::automatic ? "min-max reduction" : std::string(to_string(algorithm));
}

}  // namespace

Algorithm cuda_automatic_single(std::size_t n, std::size_t k) {
  if (k == 0 || k + 1 == n) return Algorithm::automatic;
  if (n >= kFloydRivestMinSize) return Algorithm::floyd_rivest;
  return n >= kBracketMinSize ? Algorithm::bracket : Algorithm::radix;
}

Algorithm cuda_automatic_many(std::size_t n, std::span<const std::size_t> ks, bool is_double) {
  const auto interior =
      static_cast<std::size_t>(std::count_if(ks.begin(), ks.end(), [n](std::size_t k) { return k != 0 && k + 1 != n; }));
  if (ks.size() <= 1 || (ks.size() <= kLoopRanks && interior <= loop_ranks(n))) return Algorithm::automatic;
  const std::size_t count = ks.size();
  if (n >= kSampledMultiMinSize)
    return count <= kSampledMultiMaxRanks ? Algorithm::sampled_multi : Algorithm::sort;
  return is_double || count <= kMultiMaxFloatRanks ? Algorithm::multi : Algorithm::sort;
}

Algorithm cuda_automatic_batched(std::size_t rows, std::size_t cols) {
  return rows >= kBatchedBracketMinColumnRows && rows * cols >= kBatchedBracketMinValues ? Algorithm::bracket
                                                                                          : Algorithm::radix;
}

std::string cuda_automatic_description(std::size_t n, std::span<const std::size_t> ks, bool is_double) {
  const Algorithm many = cuda_automatic_many(n, ks, is_double);
  if (many != Algorithm::automatic) return std::string(to_string(many));
  std::vector<std::string> names;
  for (const std::size_t k : ks) {
    std::string name = name_of_single(n, k);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  if (ks.size() == 1) return names.front();
  std::string out = "per rank:";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i == 0 ? " " : ", ") + names[i];
  return out;
}

}  // namespace robustfit::selection
