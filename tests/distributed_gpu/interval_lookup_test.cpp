// The CUDA shard's interval lookup (interval_lookup.hpp) equals std::upper_bound - 1 (at least
// 0), on the host, for lows of every spread (a few keys to all 2^64, repeated lows as empty
// segments give), bin counts from 2 to many, and keys below, at, between and above the lows.
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
    for (std::uint64_t key : keys) {
      ASSERT_EQ(rd::detail::interval_of(lookup, table.data(), lows.data(), key), reference(lows, key))
          << "trial " << trial << " key " << key;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100000u);
}

}  // namespace
