// The bookkeeping of bracket selection (selection/src/cuda/bracket_bookkeeping.hpp), on the host:
// the sample window, where rank k lies after the pass, and the radix digits of key - key(lo)
// that finish it, replayed serially (a sorted sample, the pass's counts and padded buffer, the
// digits one histogram at a time) on every distribution against std::nth_element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "robustfit/data/distributions.hpp"
#include "selection/src/cuda/bracket_bookkeeping.hpp"
#include "selection/src/cuda/key_traits.cuh"

namespace {

namespace bracketing = robustfit::selection::cuda::detail::bracketing;
using robustfit::data::Distribution;
using robustfit::selection::cuda::detail::KeyTraits;

template <class T>
T nth_element_reference(std::vector<T> values, std::size_t k) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

// How many replays took each kind of pass (closed_pass_for's choice).
int closed_passes = 0, open_passes = 0;

struct Setup {
  long long sample_size;
  float sigmas;
  std::size_t capacity;  // of the buffer
  std::size_t padding;   // copies of hi among the inside values (a warp chunk's unused slots)
};

// The algorithm on the host, as bracket_select.cu runs it; nullopt for a miss (the device then
// falls back to radix select). `digits` counts the finishing digits that did work.
template <class T>
std::optional<T> replay(const std::vector<T>& x, std::size_t k, const Setup& setup, std::uint64_t seed, int& digits) {
  using Key = typename KeyTraits<T>::Key;
  const std::size_t n = x.size();
  std::mt19937_64 rng(seed);
  std::vector<Key> sample(static_cast<std::size_t>(setup.sample_size));
  for (Key& key : sample) key = KeyTraits<T>::to_key(x[rng() % n]);
  std::sort(sample.begin(), sample.end());

  bracketing::BracketState<T> s = bracketing::bracket_from_sample<T>(
      [&](long long i) { return KeyTraits<T>::from_key(sample[i]); }, setup.sample_size, k, n, setup.sigmas);
  ++(s.closed ? closed_passes : open_passes);
  std::vector<T> buffer;
  for (const T v : x) {  // bracket_pass's classify_step
    if (s.closed) {
      s.below += v < s.lo;
      if (!(v < s.lo) && !(v > s.hi)) {  // [lo, hi] and NaN
        ++s.inside;
        s.nans += v != v;
        buffer.push_back(v);
      }
      continue;
    }
    s.below += v < s.lo;
    s.equal_lo += v == s.lo;
    s.equal_hi += v == s.hi;
    s.nans += v != v;
    if (s.lo < v && v < s.hi) {
      ++s.inside;
      buffer.push_back(v);
    }
  }
  if (s.nans != 0) return std::nullopt;  // the caller's NaN policy; these inputs have none
  for (std::size_t i = 0; i < setup.padding; ++i)
    buffer.insert(buffer.begin() + static_cast<std::ptrdiff_t>(rng() % (buffer.size() + 1)), s.hi);
  s.cursor = buffer.size();

  const auto at = bracketing::locate_rank(s, k, setup.capacity);
  switch (at.place) {
    case bracketing::Place::lo: return s.lo;
    case bracketing::Place::hi: return s.hi;
    case bracketing::Place::miss: return std::nullopt;
    case bracketing::Place::inside: break;
  }
  const Key base = KeyTraits<T>::to_key(s.lo);
  int remaining = bracketing::bit_width(Key(KeyTraits<T>::to_key(s.hi) - base));
  Key prefix = 0;
  unsigned long long rank = at.rank;
  digits = 0;
  while (remaining > 0) {  // finish_digit, one launch each
    ++digits;
    const bracketing::Digit digit = bracketing::next_digit(remaining);
    std::vector<unsigned long long> hist(bracketing::kDigitBins);
    for (const T v : buffer) {
      const int bin = bracketing::digit_bin(Key(KeyTraits<T>::to_key(v) - base), prefix, remaining, digit);
      if (bin >= 0) ++hist[bin];
    }
    unsigned long long below = 0;
    int bin = 0;
    while (rank >= below + hist[bin]) below += hist[bin++];  // rank < the matching count: in range
    prefix = Key(prefix << digit.width) | Key(bin);
    rank -= below;
    remaining = digit.shift;
  }
  return KeyTraits<T>::from_key(Key(prefix + base));
}

template <class T>
void replay_every_distribution() {
  const Setup setups[] = {{2048, 3.0f, ~std::size_t{0}, 0},
                          {65536, 3.0f, ~std::size_t{0}, 300},
                          {2048, 0.0f, ~std::size_t{0}, 17},  // no margin: misses are frequent
                          {8192, 3.0f, 1, 0}};                // a one-value buffer: inside overflows
  std::uint64_t seed = 1;
  int tried = 0, missed = 0;  // by the 3-sigma setups with room in the buffer
  for (const Distribution d : robustfit::data::all_distributions()) {
    for (const std::size_t n : {1, 2, 5, 100, 4099, 100000}) {
      if (d == Distribution::bucket_killer && n < 65) continue;  // needs 65 powers
      const auto x = robustfit::data::make_distribution<T>(d, n, ++seed, 16);
      std::mt19937_64 rng(seed);
      for (const std::size_t k : {std::size_t{0}, n / 2, n - 1, std::size_t(rng() % n), n / 100}) {
        const T expected = nth_element_reference(x, k);
        for (const Setup& setup : setups) {
          int digits = 0;
          const auto got = replay(x, k, setup, seed * 31 + k, digits);
          const bool counted = setup.sigmas == 3.0f && setup.capacity == ~std::size_t{0};
          tried += counted;
          if (!got) {
            missed += counted;
            continue;
          }
          ASSERT_EQ(*got, expected) << robustfit::data::to_string(d) << " n=" << n << " k=" << k
                                    << " sample=" << setup.sample_size << " sigmas=" << setup.sigmas;
          ASSERT_LE(digits, bracketing::digit_launches(KeyTraits<T>::kBits)) << "more digits than launches";
        }
      }
    }
  }
  EXPECT_LE(missed * 100, tried) << "3 sigmas should miss rank k in well under 1 % of the cases";
  EXPECT_GT(closed_passes, 0);
  EXPECT_GT(open_passes, 0);  // the tied distributions (all equal, few distinct, {1, 2}) take it
}

TEST(BracketBookkeeping, ReplayMatchesNthElementFloat) { replay_every_distribution<float>(); }
TEST(BracketBookkeeping, ReplayMatchesNthElementDouble) { replay_every_distribution<double>(); }

// With 3 sigmas, rank k is outside the bracket rarely (~0.3 %), with no margin often.
TEST(BracketBookkeeping, MissesAreRareAtThreeSigmas) {
  const auto x = robustfit::data::make_distribution<double>(Distribution::normal, 200000, 5);
  int missed_3 = 0, missed_0 = 0;
  for (std::uint64_t trial = 0; trial < 200; ++trial) {
    int digits = 0;
    const std::size_t k = 1000 + trial * 997;
    missed_3 += !replay(x, k, {8192, 3.0f, ~std::size_t{0}, 0}, trial, digits).has_value();
    missed_0 += !replay(x, k, {8192, 0.0f, ~std::size_t{0}, 0}, trial, digits).has_value();
  }
  EXPECT_LE(missed_3, 4);
  EXPECT_GE(missed_0, 20);
}

TEST(BracketBookkeeping, SampleWindowBracketsTheRankPosition) {
  for (const std::size_t n : {1, 2, 1000, 1 << 28})
    for (const long long sample : {2048LL, 65536LL})
      for (const std::size_t k : {std::size_t{0}, n / 2, n - 1}) {
        const double position = (static_cast<double>(k) + 0.5) / static_cast<double>(n) * static_cast<double>(sample) - 0.5;
        const auto narrow = bracketing::sample_window(k, n, sample, 0.0f);
        const auto wide = bracketing::sample_window(k, n, sample, 3.0f);
        EXPECT_LT(narrow.lo_rank, position);
        EXPECT_GT(narrow.hi_rank, position);
        EXPECT_LE(narrow.hi_rank - narrow.lo_rank, 3);
        EXPECT_LE(wide.lo_rank, narrow.lo_rank);
        EXPECT_GE(wide.hi_rank, narrow.hi_rank);
      }
  EXPECT_LT(bracketing::sample_window(0, 1000, 2048, 3.0f).lo_rank, 0);              // lo = -inf
  EXPECT_GE(bracketing::sample_window(999, 1000, 2048, 3.0f).hi_rank, 2048);         // hi = +inf
  const auto median = bracketing::sample_window(1 << 27, 1 << 28, 65536, 3.0f);  // +-3 * 128 + 1
  EXPECT_EQ(median.hi_rank - median.lo_rank, 771);
}

// The closed pass keeps its ends' ties: it is taken only where neither end repeats in the sample
// (nor, off the sample, is the sample's extreme an infinity there).
TEST(BracketBookkeeping, ClosedPassOnlyWhereTheEndsAreNotTied) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> sample{-inf, 1, 2, 2, 3, 4, 5, 6, 7, inf};
  const auto at = [&](long long i) { return sample[static_cast<std::size_t>(i)]; };
  const long long size = static_cast<long long>(sample.size());
  EXPECT_FALSE(bracketing::bracket_end_tied<double>(at, size, 1));
  EXPECT_TRUE(bracketing::bracket_end_tied<double>(at, size, 2));   // 2 == its right neighbour
  EXPECT_TRUE(bracketing::bracket_end_tied<double>(at, size, 3));   // 2 == its left neighbour
  EXPECT_FALSE(bracketing::bracket_end_tied<double>(at, size, 0));  // one -inf in the sample
  EXPECT_TRUE(bracketing::bracket_end_tied<double>(at, size, -1));  // lo = -inf, and -inf was drawn
  EXPECT_TRUE(bracketing::bracket_end_tied<double>(at, size, size));
  const std::vector<double> finite{1, 2, 3};
  const auto at_finite = [&](long long i) { return finite[static_cast<std::size_t>(i)]; };
  EXPECT_FALSE(bracketing::bracket_end_tied<double>(at_finite, 3, -1));
  EXPECT_FALSE(bracketing::bracket_end_tied<double>(at_finite, 3, 3));
  EXPECT_TRUE(bracketing::closed_pass_for<double>(at, size, {1, 4}));
  EXPECT_FALSE(bracketing::closed_pass_for<double>(at, size, {1, 3}));
  EXPECT_FALSE(bracketing::closed_pass_for<double>(at, size, {2, 5}));
  const std::vector<float> zeros{-1.0f, -0.0f, 0.0f, 1.0f};  // -0 == +0: tied values
  const auto at_zeros = [&](long long i) { return zeros[static_cast<std::size_t>(i)]; };
  EXPECT_TRUE(bracketing::bracket_end_tied<float>(at_zeros, 4, 1));
}

// The device selects the sample's two order statistics instead of sorting it
// (block_sample_select.cuh) and builds the bracket from them and their repeat counts: the same
// bracket as the sorted sample's, ends off the sample and ties included.
TEST(BracketBookkeeping, BracketFromSelectedEndsIsTheSortedSamples) {
  const double inf = std::numeric_limits<double>::infinity();
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 2000; ++trial) {
    const long long size = 1 + static_cast<long long>(rng() % 40);
    std::vector<double> sample(static_cast<std::size_t>(size));
    const int distinct = 1 + static_cast<int>(rng() % 8);  // few values: ties
    for (double& v : sample) {
      const int pick = static_cast<int>(rng() % (distinct + 2));
      v = pick == distinct ? -inf : pick == distinct + 1 ? inf : pick;
      if (trial % 3 == 0 && std::isinf(v)) v = pick;  // and samples without infinities
    }
    std::sort(sample.begin(), sample.end());
    const auto at = [&](long long i) { return sample[static_cast<std::size_t>(i)]; };
    const std::size_t n = 1000;
    const std::size_t k = rng() % n;
    const float sigmas = static_cast<float>(rng() % 4);
    const auto window = bracketing::sample_window(k, n, size, sigmas);
    const auto reference = bracketing::bracket_from_sample<double>(at, size, k, n, sigmas);
    const auto lo_rank = bracketing::clamped_rank(window.lo_rank, size);
    const auto hi_rank = bracketing::clamped_rank(window.hi_rank, size);
    const auto repeats = [&](long long r) {
      return static_cast<unsigned>(std::count(sample.begin(), sample.end(), at(r)));
    };
    const auto selected = bracketing::bracket_from_ends<double>(window, size, at(lo_rank), repeats(lo_rank),
                                                                at(hi_rank), repeats(hi_rank));
    ASSERT_EQ(selected.lo, reference.lo) << "trial " << trial;
    ASSERT_EQ(selected.hi, reference.hi) << "trial " << trial;
    ASSERT_EQ(selected.closed, reference.closed) << "trial " << trial;
  }
}

TEST(BracketBookkeeping, LocateRank) {
  using bracketing::Place;
  bracketing::BracketState<float> s{};
  s.lo = 1, s.hi = 2, s.below = 10, s.equal_lo = 5, s.inside = 20, s.equal_hi = 3, s.cursor = 25;
  EXPECT_EQ(bracketing::locate_rank(s, 9, 100).place, Place::miss);
  EXPECT_EQ(bracketing::locate_rank(s, 10, 100).place, Place::lo);
  EXPECT_EQ(bracketing::locate_rank(s, 14, 100).place, Place::lo);
  EXPECT_EQ(bracketing::locate_rank(s, 15, 100).place, Place::inside);
  EXPECT_EQ(bracketing::locate_rank(s, 15, 100).rank, 0u);
  EXPECT_EQ(bracketing::locate_rank(s, 34, 100).rank, 19u);
  EXPECT_EQ(bracketing::locate_rank(s, 34, 24).place, Place::miss);  // the buffer overflowed
  EXPECT_EQ(bracketing::locate_rank(s, 35, 100).place, Place::hi);
  EXPECT_EQ(bracketing::locate_rank(s, 37, 100).place, Place::hi);
  EXPECT_EQ(bracketing::locate_rank(s, 38, 100).place, Place::miss);
  s.hi = 1, s.inside = 0, s.equal_hi = 5;  // lo == hi: the pass counted the ties twice
  EXPECT_EQ(bracketing::locate_rank(s, 14, 100).place, Place::lo);
  EXPECT_EQ(bracketing::locate_rank(s, 15, 100).place, Place::miss);
}

TEST(BracketBookkeeping, DigitArithmetic) {
  EXPECT_EQ(bracketing::bit_width(std::uint32_t{0}), 0);
  EXPECT_EQ(bracketing::bit_width(std::uint32_t{1}), 1);
  EXPECT_EQ(bracketing::bit_width(std::uint32_t{2048}), 12);
  EXPECT_EQ(bracketing::bit_width(~std::uint32_t{0}), 32);
  EXPECT_EQ(bracketing::bit_width(~std::uint64_t{0}), 64);
  EXPECT_EQ(bracketing::shift_right(~std::uint32_t{0}, 32), 0u);
  EXPECT_EQ(bracketing::shift_right(~std::uint64_t{0}, 63), 1u);
  EXPECT_EQ(bracketing::next_digit(32).shift, 21);
  EXPECT_EQ(bracketing::next_digit(10).shift, 0);
  EXPECT_EQ(bracketing::next_digit(10).width, 10);
  EXPECT_EQ(bracketing::digit_launches(32), 3);
  EXPECT_EQ(bracketing::digit_launches(64), 6);
  EXPECT_EQ(bracketing::digit_bin(std::uint32_t{0x12345678}, std::uint32_t{0}, 32, bracketing::next_digit(32)), 0x091);
  EXPECT_EQ(bracketing::digit_bin(std::uint32_t{0x12345678}, std::uint32_t{0x091}, 21, bracketing::next_digit(21)),
            (0x12345678 & 0x1fffff) >> 10);
  EXPECT_EQ(bracketing::digit_bin(std::uint32_t{0x12345678}, std::uint32_t{0x092}, 21, bracketing::next_digit(21)), -1);
}

}  // namespace
