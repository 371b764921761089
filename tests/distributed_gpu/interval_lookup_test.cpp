// The CUDA shard's interval lookup (interval_lookup.hpp) equals std::upper_bound - 1 (at least
// 0), on the host, for lows of every spread (a few keys to all 2^64, repeated lows as empty
// segments give), bin counts from 2 to many, and keys below, at, between and above the lows; and
// the reduce's one-word answers (direct_answers, answer_of) give values[upper_bound - 1]; with
// 32-bit lows (the float passes, 16-bit tables read a pair at a time) also for lows evenly
// spread, clustered, repeated and random, in bins holding up to thousands.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda/interval_lookup.hpp"
#include "robustfit/common/random.hpp"

namespace rd = robustfit::distributed;

namespace {

constexpr std::uint64_t kMax = ~std::uint64_t{0};

std::uint32_t reference(const std::vector<std::uint64_t>& lows, std::uint64_t key) {
  const auto after = std::upper_bound(lows.begin(), lows.end(), key) - lows.begin();
  return static_cast<std::uint32_t>(std::max<std::ptrdiff_t>(after - 1, 0));
}

TEST(IntervalLookup, EqualsUpperBound) {
  robustfit::common::Random random(20261125);
  std::uint64_t checked = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const std::uint64_t count = 1 + random.below(trial % 3 == 0 ? 4 : 300);
    const std::uint64_t spread = kMax >> random.below(64);
    const std::uint64_t origin = random.below(kMax - spread + 1);
    std::vector<std::uint64_t> lows;
    for (std::uint64_t i = 0; i < count; ++i) lows.push_back(origin + (spread == kMax ? random.next() : random.below(spread + 1)));
    if (trial % 4 == 1) lows.push_back(lows[random.below(lows.size())]);  // a repeated low (an empty segment)
    if (trial % 7 == 2) lows.push_back(kMax), lows.push_back(0);
    std::sort(lows.begin(), lows.end());
    const std::uint64_t max_bins = std::uint64_t{2} << random.below(14);
    std::vector<std::uint32_t> table;
    const rd::detail::IntervalLookup lookup = rd::detail::make_interval_lookup(lows, max_bins, table);
    ASSERT_LE(lookup.bins, std::max<std::uint64_t>(max_bins, 2));
    std::vector<std::uint64_t> keys{0, kMax, 1, kMax - 1};
    for (std::uint64_t low : lows) keys.insert(keys.end(), {low, low - 1, low + 1});
    for (int i = 0; i < 200; ++i) keys.push_back(origin + (spread == kMax ? random.next() : random.below(spread + 1)));
    // Slots as the reduce has them: -1 (no slot, most ranges) or a slot number.
    std::vector<std::int32_t> values;
    for (std::size_t i = 0; i < lows.size(); ++i)
      values.push_back(random.below(3) == 0 ? static_cast<std::int32_t>(random.below(1000)) : -1);
    const std::vector<std::uint32_t> words = rd::detail::direct_answers(lookup, table, values);
    ASSERT_EQ(words.size(), lookup.bins);
    for (std::uint64_t key : keys) {
      ASSERT_EQ(rd::detail::interval_of(lookup, table.data(), lows.data(), key), reference(lows, key))
          << "trial " << trial << " key " << key;
      ASSERT_EQ(rd::detail::answer_of(lookup, words.data(), lows.data(), values.data(), key), values[reference(lows, key)])
          << "trial " << trial << " key " << key;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100000u);
}

TEST(IntervalLookup, ThirtyTwoBitLowsEqualUpperBound) {
  robustfit::common::Random random(20261128);
  std::uint64_t checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::uint32_t count = 1 + static_cast<std::uint32_t>(random.below(trial % 4 == 0 ? 8 : 9000));
    const std::uint32_t origin = static_cast<std::uint32_t>(random.below(1u << 31));
    const std::uint32_t spread = 1 + static_cast<std::uint32_t>(random.below(std::uint64_t{1} << (1 + random.below(31))));
    std::vector<std::uint32_t> lows;
    for (std::uint32_t i = 0; i < count; ++i) {
      switch (trial % 4) {
        case 0: lows.push_back(origin + static_cast<std::uint32_t>(random.below(spread))); break;      // random
        case 1: lows.push_back(origin + static_cast<std::uint32_t>(std::uint64_t{i} * spread / count)); break;  // even
        case 2: lows.push_back(origin + static_cast<std::uint32_t>(random.below(1 + spread / 64)) +     // clusters
                               (random.below(2) ? spread / 2 : 0)); break;
        default: lows.push_back(origin + static_cast<std::uint32_t>(random.below(4)) * (spread / 4));  // repeats
      }
    }
    std::sort(lows.begin(), lows.end());
    const std::vector<std::uint64_t> wide(lows.begin(), lows.end());
    const std::uint64_t max_bins = std::uint64_t{2} << random.below(13);
    std::vector<std::uint32_t> table;
    const rd::detail::IntervalLookup lookup = rd::detail::make_interval_lookup(wide, max_bins, table);
    std::vector<std::uint16_t> narrow(table.begin(), table.end());
    std::vector<std::int32_t> values;
    for (std::size_t i = 0; i < lows.size(); ++i) values.push_back(static_cast<std::int32_t>(i % 7) - 1);
    const std::vector<std::uint32_t> words = rd::detail::direct_answers(lookup, table, values);
    std::vector<std::uint32_t> keys{0, ~0u, lows.front(), lows.back()};
    for (std::uint32_t low : lows) keys.insert(keys.end(), {low, low - 1, low + 1});
    for (int i = 0; i < 300; ++i) keys.push_back(origin + static_cast<std::uint32_t>(random.below(spread + 2)));
    for (std::uint32_t key : keys) {
      const std::uint32_t want = reference(wide, key);
      ASSERT_EQ(rd::detail::interval_of(lookup, table.data(), lows.data(), key), want) << "trial " << trial << " key " << key;
      if (lows.size() <= 65536) {
        ASSERT_EQ(rd::detail::interval_of(lookup, narrow.data(), lows.data(), key), want) << "trial " << trial;
        ASSERT_EQ(rd::detail::answer_of(lookup, words.data(), lows.data(), values.data(), key), values[want]) << "trial " << trial;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000000u);
}

}  // namespace
