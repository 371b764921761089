// The sample sorts' local pieces (mpi/local_sort.hpp) against std::sort: the merge of a
// receive's sorted runs (empty runs, runs of one value, ties, -0 and +0, runs that continue one
// another) and the host's local sort. The GPU's sort is compared in distributed_gpu/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "mpi/local_sort.hpp"
#include "robustfit/common/random.hpp"

namespace rr = robustfit::regression::detail;

namespace {

// A receive of `runs` sorted runs of random lengths (some empty); few distinct values when `ties`.
std::vector<double> receive(std::uint64_t seed, std::size_t runs, bool ties, std::vector<double>& received) {
  robustfit::common::Random random(seed);
  std::vector<double> all;
  received.clear();
  for (std::size_t r = 0; r < runs; ++r) {
    const auto length = static_cast<std::size_t>(random.uniform() * 4) == 0 ? static_cast<std::size_t>(random.uniform() * 2)
                                                                             : static_cast<std::size_t>(random.uniform() * 3000);
    std::vector<double> run(length);
    for (double& v : run) {
      v = ties ? std::round(3 * random.normal()) : random.normal();
      if (v == 0) v = random.uniform() < 0.5 ? -0.0 : 0.0;
    }
    std::sort(run.begin(), run.end());
    received.insert(received.end(), run.begin(), run.end());
    all.insert(all.end(), run.begin(), run.end());
  }
  std::sort(all.begin(), all.end());
  return all;
}

TEST(LocalSort, MergedRunsEqualSort) {
  for (const bool ties : {false, true})
    for (std::size_t runs = 0; runs <= 9; ++runs)
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        std::vector<double> received;
        const std::vector<double> want = receive(seed * 100 + runs, runs, ties, received);
        const std::vector<double> got = rr::merge_sorted_runs(std::move(received));
        const std::string where = std::to_string(runs) + " runs, seed " + std::to_string(seed) + (ties ? ", ties" : "");
        ASSERT_EQ(got.size(), want.size()) << where;
        for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << where << " at " << i;
      }
}

// Runs long enough for the merges to split across row chunks (the merge path's binary search),
// through many ties.
TEST(LocalSort, LongRunsMergeAcrossChunks) {
  robustfit::common::Random random(5);
  std::vector<double> received, want;
  for (const std::size_t length : {90001, 1, 150000, 0, 70007}) {
    std::vector<double> run(length);
    for (double& v : run) v = std::round(20 * random.normal());
    std::sort(run.begin(), run.end());
    received.insert(received.end(), run.begin(), run.end());
  }
  want = received;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(rr::merge_sorted_runs(std::move(received)), want);
}

TEST(LocalSort, RunsThatContinueOneAnotherAreKept) {
  // Two sources whose runs happen to be one ascending sequence: nothing to merge.
  EXPECT_EQ(rr::merge_sorted_runs({1, 2, 2, 3, 3, 4}), (std::vector<double>{1, 2, 2, 3, 3, 4}));
}

TEST(LocalSort, HostSortEqualsStdSort) {
  robustfit::common::Random random(7);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{200003}}) {
    std::vector<double> values(n);
    for (double& v : values) v = std::round(100 * random.normal()) / 8;
    std::vector<double> want = values, got(n);
    std::sort(want.begin(), want.end());
    rr::sort_local(values, got, /*on_gpu=*/false);
    EXPECT_EQ(got, want) << n;
  }
}

}  // namespace
