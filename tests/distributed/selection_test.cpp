// Distributed selection under mpirun: DIBMS and the cutting plane give exactly the values of
// std::nth_element on the whole vector, for every test distribution (adversarial ones
// included), even and uneven shards (a rank with no rows, a rank with one), float and double,
// and parameters that force many Phase 2 iterations and the repeated-value stopping rule; on
// each LocalShard backend (CPU, and CUDA where a GPU is present: one GPU per rank).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "robustfit/data/distributions.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/distributed/local_shard.hpp"
#include "robustfit/distributed/selection.hpp"
#include "reference.hpp"
#include "backends.hpp"
#include "shards.hpp"

namespace rd = robustfit::distributed;
namespace rt = robustfit::testing;
using robustfit::data::Distribution;

namespace {

using Dibms = rt::OnEveryBackend;
using CuttingPlane = rt::OnEveryBackend;

using robustfit::distributed::testing::nth_element_reference;
using robustfit::distributed::testing::test_ranks;

template <class T>
rd::SelectionReport expect_dibms_exact(rt::ShardBackend backend, const std::vector<T>& all, const std::string& split,
                                       const rd::DibmsOptions& options, const std::string& what) {
  rd::Communicator comm;
  const auto shard = rt::make_shard<T>(backend, rt::shard_of(all, split, comm.rank(), comm.size()));
  const std::vector<std::uint64_t> ks = test_ranks(all.size());
  rd::SelectionReport report;
  const std::vector<double> got = rd::dibms_select(comm, *shard, ks, options, &report);
  const std::vector<double> want = nth_element_reference(all, ks);
  EXPECT_EQ(got.size(), want.size());
  if (got.size() != want.size()) return report;
  for (std::size_t i = 0; i < ks.size(); ++i) EXPECT_EQ(got[i], want[i]) << what << " split " << split << " k " << ks[i];
  EXPECT_EQ(report.n, all.size());
  return report;
}

TEST_P(Dibms, EveryDistributionEverySplitMatchesNthElement) {
  for (Distribution d : robustfit::data::all_distributions()) {
    const auto all = robustfit::data::make_distribution<double>(d, 30011, 7);
    for (const char* split : rt::kSplits) expect_dibms_exact(GetParam(), all, split, {}, std::string(to_string(d)));
  }
}

TEST_P(Dibms, FloatValues) {
  for (Distribution d : {Distribution::normal, Distribution::bucket_killer, Distribution::two_values_95}) {
    const auto all = robustfit::data::make_distribution<float>(d, 20000, 3);
    expect_dibms_exact(GetParam(), all, "even", {}, std::string(to_string(d)));
  }
}

TEST_P(Dibms, FewBucketsForceManyIterationsAndTheStoppingRule) {
  rd::DibmsOptions few;
  few.buckets = 8;
  few.pivot_intervals = 4;
  few.gather_candidates = 0;  // the paper's iterations to the end
  few.sample_size = 16;
  few.band_intervals = false;  // the paper's pivots
  int checks = 0;
  std::uint64_t single_answers = 0;
  for (Distribution d : robustfit::data::all_distributions()) {
    const auto all = robustfit::data::make_distribution<double>(d, 5003, 11, 5);
    for (const char* split : rt::kSplits) {
      const rd::SelectionReport report = expect_dibms_exact(GetParam(), all, split, few, std::string(to_string(d)) + " (B = 8)");
      checks += report.repeated_value_checks;
      single_answers += report.single_answers;
    }
  }
  // Both ways out of Phase 2 were taken somewhere: the repeated-value check and single candidates.
  EXPECT_GT(checks, 0);
  EXPECT_GT(single_answers, 0u);
}

// Gathering the last few candidates answers as the paper's iterations to the end do, in fewer
// iterations; on every distribution (repeated values: the stopping rule before the gather) and
// split (ranks with no values or one value).
TEST_P(Dibms, GatheringTheLastCandidatesAnswersAsThePapersIterations) {
  rd::DibmsOptions paper;  // the paper's Phase 1 and its iterations to the end
  paper.gather_candidates = 0, paper.pivot_intervals = 16, paper.band_intervals = false;
  rd::DibmsOptions gather = paper;
  gather.gather_candidates = 512;  // below these n / B * ranks: one iteration at least before it
  int fewer = 0;
  for (Distribution d : robustfit::data::all_distributions()) {
    const auto all = robustfit::data::make_distribution<double>(d, 200003, 17);
    for (const char* split : rt::kSplits) {
      const std::string what = std::string(to_string(d)) + " split " + split;
      const rd::SelectionReport iterated = expect_dibms_exact(GetParam(), all, split, paper, what + " (iterated)");
      const rd::SelectionReport gathered = expect_dibms_exact(GetParam(), all, split, gather, what + " (gathered)");
      EXPECT_EQ(iterated.gathered, 0u) << what;
      EXPECT_LE(gathered.iterations, iterated.iterations) << what;
      EXPECT_LE(gathered.gathered, gather.gather_candidates) << what;
      fewer += gathered.iterations < iterated.iterations && gathered.gathered > 0 ? 1 : 0;
    }
  }
  EXPECT_GT(fewer, 10);  // most of the 30 cases end by a gather, at least one iteration sooner
}

// A small problem's first count uses fewer buckets than B (enough to leave the gather a
// quarter of its budget): the same answers, and fewer bytes than one count of B buckets once
// the gathered keys are set aside (n = 20011: 1024 buckets).
TEST_P(Dibms, SmallProblemsCountFewerBuckets) {
  const rd::DibmsOptions options;
  for (Distribution d : {Distribution::uniform, Distribution::normal, Distribution::cauchy}) {
    const auto all = robustfit::data::make_distribution<double>(d, 20011, 19);
    for (const char* split : rt::kSplits) {
      const std::string what = std::string(to_string(d)) + " split " + split;
      const rd::SelectionReport report = expect_dibms_exact(GetParam(), all, split, options, what);
      EXPECT_EQ(report.iterations, 1) << what;
      EXPECT_LT(report.bytes - std::min(report.bytes, 8 * report.gathered), 8 * options.buckets) << what;
    }
  }
}

// Forwards every call to the shard it wraps; the tests' wrappers override what they watch.
class ForwardingShard : public rd::LocalShard {
 public:
  explicit ForwardingShard(std::unique_ptr<rd::LocalShard> shard) : shard_(std::move(shard)) {}
  void reset() override { shard_->reset(); }
  std::uint64_t size() const override { return shard_->size(); }
  std::array<std::uint64_t, 2> key_range() const override { return shard_->key_range(); }
  std::vector<std::uint64_t> sample(std::uint64_t count, std::uint64_t seed) const override { return shard_->sample(count, seed); }
  std::vector<std::uint64_t> count_buckets(std::span<const rd::KeyInterval> intervals, std::uint64_t buckets,
                                           bool segmented) override {
    return shard_->count_buckets(intervals, buckets, segmented);
  }
  std::vector<std::uint64_t> reduce(std::span<const std::uint64_t> keep, std::span<const std::uint64_t> singles) override {
    return shard_->reduce(keep, singles);
  }
  std::vector<std::uint64_t> segment_key_ranges() const override { return shard_->segment_key_ranges(); }
  std::vector<std::uint64_t> kept_candidates() const override { return shard_->kept_candidates(); }
  rd::PivotSums pivot_sums(std::uint64_t lo, std::uint64_t hi, std::uint64_t pivot) const override {
    return shard_->pivot_sums(lo, hi, pivot);
  }
  std::vector<std::uint64_t> keys_inside(std::uint64_t lo, std::uint64_t hi) const override { return shard_->keys_inside(lo, hi); }
  bool concurrent_calls() const override { return shard_->concurrent_calls(); }
  bool fine_pivots_free() const override { return shard_->fine_pivots_free(); }

 private:
  std::unique_ptr<rd::LocalShard> shard_;
};

// Notes the candidates each reduce keeps (since the last reset).
class KeptSpy final : public ForwardingShard {
 public:
  using ForwardingShard::ForwardingShard;
  std::vector<std::uint64_t> kept;
  void reset() override { ForwardingShard::reset(), kept.clear(); }
  std::vector<std::uint64_t> reduce(std::span<const std::uint64_t> keep, std::span<const std::uint64_t> singles) override {
    std::vector<std::uint64_t> found = ForwardingShard::reduce(keep, singles);
    kept.push_back(size());
    return found;
  }
};

// Says fine pivots are free where `free` is set, else as the shard it wraps.
class ClaimsFinePivots final : public ForwardingShard {
 public:
  ClaimsFinePivots(std::unique_ptr<rd::LocalShard> shard, bool free) : ForwardingShard(std::move(shard)), free_(free) {}
  bool fine_pivots_free() const override { return free_; }

 private:
  bool free_;
};

// The candidates this rank's shard keeps after the first reduce of DIBMS for 101 percentiles,
// summed over the ranks; the answers checked against std::nth_element.
std::uint64_t kept_by_first_reduce(rd::Communicator& comm, std::unique_ptr<rd::LocalShard> shard,
                                   const std::vector<float>& all, const rd::DibmsOptions& options, const std::string& what) {
  KeptSpy spy(std::move(shard));
  std::vector<std::uint64_t> ks;
  for (std::uint64_t i = 0; i <= 100; ++i) ks.push_back(std::min<std::uint64_t>(all.size() - 1, i * all.size() / 100));
  EXPECT_EQ(rd::dibms_select(comm, spy, ks, options), nth_element_reference(all, ks)) << what;
  std::vector<std::uint64_t> kept{spy.kept.empty() ? 0 : spy.kept.front()};
  comm.all_reduce_sum(kept);
  return kept[0];
}

// Phase 1's pivot intervals (band_intervals off). One per 32 buckets (256 here) follow the values'
// density, so the buckets of 101 percentiles hold few values: the first reduce keeps under 3 % of
// them on normal, Cauchy and uniform data (the paper's P = 16 keeps 7-10 % of normal and Cauchy
// data: its buckets are even in key space over wide intervals, where order keys are far from the
// values' density). pivot_intervals = 0 takes them where every rank's shards take them for free
// (the CUDA shard over floats), else the paper's 16 — also when only some ranks would. Exact
// either way.
TEST_P(Dibms, PhaseOnePivotsFollowTheValuesWhereTheyAreFree) {
  rd::Communicator comm;
  const std::size_t n = std::size_t{1} << 20;
  rd::DibmsOptions fine, paper, pivots;
  fine.pivot_intervals = 256, paper.pivot_intervals = 16;
  fine.band_intervals = paper.band_intervals = pivots.band_intervals = false;
  for (Distribution d : {Distribution::normal, Distribution::cauchy, Distribution::uniform}) {
    const auto all = robustfit::data::make_distribution<float>(d, n, 31);
    const auto mine = rt::shard_of(all, "even", comm.rank(), comm.size());
    const std::string what(to_string(d));
    const std::uint64_t with_fine = kept_by_first_reduce(comm, rt::make_shard<float>(GetParam(), mine), all, fine, what);
    const std::uint64_t with_paper = kept_by_first_reduce(comm, rt::make_shard<float>(GetParam(), mine), all, paper, what);
    const std::uint64_t by_default = kept_by_first_reduce(comm, rt::make_shard<float>(GetParam(), mine), all, pivots, what);
    EXPECT_LT(static_cast<double>(with_fine), 0.03 * static_cast<double>(n)) << what;
    EXPECT_EQ(by_default, GetParam() == rt::ShardBackend::cuda ? with_fine : with_paper) << what;
    const std::uint64_t rank_0_claims = kept_by_first_reduce(
        comm, std::make_unique<ClaimsFinePivots>(rt::make_shard<float>(GetParam(), mine), comm.rank() == 0), all, pivots, what);
    EXPECT_EQ(rank_0_claims, comm.size() == 1 ? with_fine : with_paper) << what << ": the ranks agree";
  }
}

// Phase 1's intervals aligned to the order key's bands (DibmsOptions::band_intervals, the
// default): the same answers on every distribution and split, through the paper's iterations to
// the end as well as with the final gather; and buckets that follow the values as fine pivots do
// (the first reduce keeps under 3 % of 2^20 normal, Cauchy or uniform floats for 101 percentiles).
TEST_P(Dibms, BandAlignedIntervalsMatchNthElement) {
  rd::DibmsOptions bands, bands_paper;
  bands.band_intervals = true;
  bands_paper.band_intervals = true, bands_paper.gather_candidates = 0;
  for (Distribution d : robustfit::data::all_distributions()) {
    const auto all = robustfit::data::make_distribution<double>(d, 30011, 9);
    for (const char* split : rt::kSplits) {
      expect_dibms_exact(GetParam(), all, split, bands, std::string(to_string(d)) + " bands");
      expect_dibms_exact(GetParam(), all, split, bands_paper, std::string(to_string(d)) + " bands, no gather");
    }
  }
  for (Distribution d : {Distribution::normal, Distribution::bucket_killer, Distribution::two_values_95}) {
    const auto all = robustfit::data::make_distribution<float>(d, 20000, 3);
    expect_dibms_exact(GetParam(), all, "even", bands_paper, std::string(to_string(d)) + " float bands");
  }
}

TEST_P(Dibms, BandAlignedIntervalsFollowTheValues) {
  rd::Communicator comm;
  const std::size_t n = std::size_t{1} << 20;
  rd::DibmsOptions bands;
  bands.band_intervals = true;
  for (Distribution d : {Distribution::normal, Distribution::cauchy, Distribution::uniform}) {
    const auto all = robustfit::data::make_distribution<float>(d, n, 31);
    const auto mine = rt::shard_of(all, "even", comm.rank(), comm.size());
    const std::string what(to_string(d));
    const std::uint64_t kept = kept_by_first_reduce(comm, rt::make_shard<float>(GetParam(), mine), all, bands, what);
    EXPECT_LT(static_cast<double>(kept), 0.03 * static_cast<double>(n)) << what;
  }
}

TEST_P(Dibms, BytesDoNotGrowWithN) {
  rd::Communicator comm;
  const rd::DibmsOptions options;
  for (std::size_t n : {std::size_t{10000}, std::size_t{400000}}) {
    const auto all = robustfit::data::make_distribution<double>(Distribution::normal, n, 5);
    const auto shard = local_shard<double>(rt::shard_of(all, "even", comm.rank(), comm.size()));
    const std::vector<std::uint64_t> ks = test_ranks(n);
    rd::SelectionReport report;
    rd::dibms_select(comm, *shard, ks, options, &report);
    // Phase 1: n, the key range, the samples and the pivots; then per iteration the bucket
    // counts, the single-candidate answers and (at most) two keys per active bucket; at the
    // end (at most) the gathered candidates and their count.
    const std::uint64_t m = ks.size();
    const std::uint64_t bound = 8 * (3 + 1 + options.sample_size + 2 * options.pivot_intervals + 2) +
                                static_cast<std::uint64_t>(report.iterations) * 8 * (options.buckets + 2 * m + m) +
                                8 * (options.gather_candidates + 1) + 4;
    EXPECT_LE(report.bytes, bound) << "n = " << n << ", iterations " << report.iterations;
    EXPECT_LE(report.iterations, 4) << "n = " << n;
  }
}

TEST_P(Dibms, BatchedProblemsShareCollectivesAndMatchNthElement) {
  rd::Communicator comm;
  std::vector<std::vector<double>> alls;
  std::vector<std::unique_ptr<rd::LocalShard>> owned;
  std::vector<rd::LocalShard*> shards;
  std::vector<std::vector<std::uint64_t>> ks;
  std::size_t i = 0;
  for (Distribution d : robustfit::data::all_distributions()) {
    alls.push_back(robustfit::data::make_distribution<double>(d, 3000 + 7 * i, 13));
    owned.push_back(local_shard<double>(rt::shard_of(alls.back(), rt::kSplits[i % 3], comm.rank(), comm.size())));
    shards.push_back(owned.back().get());
    ks.push_back(i % 2 == 0 ? test_ranks(alls.back().size()) : std::vector<std::uint64_t>{alls.back().size() / 3});
    ++i;
  }
  rd::DibmsOptions paper;  // the paper's Phase 1 and iterations to the end (a batch shares the gather's budget)
  paper.gather_candidates = 0, paper.pivot_intervals = 16, paper.band_intervals = false;
  for (const rd::DibmsOptions& options : {rd::DibmsOptions{}, paper}) {
    rd::SelectionReport batched;
    const auto got = rd::dibms_select_batched(comm, shards, ks, options, &batched);
    ASSERT_EQ(got.size(), alls.size());
    for (std::size_t j = 0; j < alls.size(); ++j)
      EXPECT_EQ(got[j], nth_element_reference(alls[j], ks[j])) << "problem " << j << ", gathered from " << options.gather_candidates;
  }
  // One problem's collectives, not one set per problem: no more iterations than the worst alone.
  rd::SelectionReport batched;
  rd::dibms_select_batched(comm, shards, ks, paper, &batched);
  int most = 0;
  for (std::size_t j = 0; j < alls.size(); ++j) {
    rd::SelectionReport alone;
    rd::dibms_select(comm, *shards[j], ks[j], paper, &alone);
    most = std::max(most, alone.iterations);
  }
  EXPECT_EQ(batched.iterations, most);
}

// A shard that answers as the one it wraps but says whether its calls may run at once: DIBMS
// runs a batch's per-problem calls on the host's threads where every shard says so (the CPU and
// CUDA shards do), one after another where one does not.
class ShardCalled final : public ForwardingShard {
 public:
  ShardCalled(std::unique_ptr<rd::LocalShard> shard, bool at_once) : ForwardingShard(std::move(shard)), at_once_(at_once) {}
  bool concurrent_calls() const override { return at_once_; }

 private:
  bool at_once_;
};

// The batch's calls at once give the answers, iterations and bytes of the calls in turn.
TEST(DibmsBatch, ConcurrentShardCallsGiveTheSameSelection) {
  rd::Communicator comm;
  std::vector<std::vector<double>> alls;
  std::vector<std::unique_ptr<rd::LocalShard>> in_turn, at_once;
  std::vector<rd::LocalShard*> in_turn_shards, at_once_shards;
  std::vector<std::vector<std::uint64_t>> ks;
  std::size_t i = 0;
  for (Distribution d : robustfit::data::all_distributions()) {
    alls.push_back(robustfit::data::make_distribution<double>(d, 40000 + 11 * i, 29));
    const auto mine = rt::shard_of(alls.back(), rt::kSplits[i % 3], comm.rank(), comm.size());
    in_turn.push_back(std::make_unique<ShardCalled>(rd::make_cpu_local_shard<double>(mine), false));
    at_once.push_back(std::make_unique<ShardCalled>(rd::make_cpu_local_shard<double>(mine), true));
    in_turn_shards.push_back(in_turn.back().get());
    at_once_shards.push_back(at_once.back().get());
    ks.push_back(i % 2 == 0 ? test_ranks(alls.back().size()) : std::vector<std::uint64_t>{alls.back().size() / 2});
    ++i;
  }
  rd::DibmsOptions paper;
  paper.gather_candidates = 0;
  for (const rd::DibmsOptions& options : {rd::DibmsOptions{}, paper}) {
    rd::SelectionReport a, b;
    const auto want = rd::dibms_select_batched(comm, in_turn_shards, ks, options, &a);
    const auto got = rd::dibms_select_batched(comm, at_once_shards, ks, options, &b);
    ASSERT_EQ(got.size(), alls.size());
    for (std::size_t j = 0; j < alls.size(); ++j) {
      EXPECT_EQ(got[j], want[j]) << "problem " << j;
      EXPECT_EQ(got[j], nth_element_reference(alls[j], ks[j])) << "problem " << j;
    }
    EXPECT_EQ(b.iterations, a.iterations);
    EXPECT_EQ(b.bytes, a.bytes);
  }
}

// A bracketed start answers as nth_element whether the bracket holds the answers, misses them
// below or above, is one value or spans everything, on every distribution and split, in
// batches of problems with brackets of their own; B = 8 and no gather as well (the iterations
// to the end from the bracket's intervals, with the repeated-value rule).
TEST_P(Dibms, BracketedStartsMatchNthElementWhereverTheBracketLies) {
  rd::Communicator comm;
  const double inf = std::numeric_limits<double>::infinity();
  rd::DibmsOptions few;
  few.buckets = 8;
  few.gather_candidates = 0;
  for (const rd::DibmsOptions& options : {rd::DibmsOptions{}, few}) {
    std::size_t i = 0;
    for (Distribution d : robustfit::data::all_distributions()) {
      const auto all = robustfit::data::make_distribution<double>(d, 20011 + 7 * i, 13);
      const auto mine = rt::shard_of(all, rt::kSplits[i % 3], comm.rank(), comm.size());
      const std::vector<std::uint64_t> ks = test_ranks(all.size());
      const std::vector<double> want = nth_element_reference(all, ks);
      const double median = want[want.size() / 2];
      const std::vector<rd::DibmsBracket> brackets{
          {all.size(), want.front(), want.back()},   // holds every answer
          {all.size(), median, median},              // one value
          {all.size(), -inf, inf},                   // everything
          {all.size(), want.back(), inf},            // above most answers
          {all.size(), -inf, want.front()},          // below most answers
      };
      std::vector<std::unique_ptr<rd::LocalShard>> owned;
      std::vector<rd::LocalShard*> shards;
      for (std::size_t b = 0; b < brackets.size(); ++b) {
        owned.push_back(rt::make_shard<double>(GetParam(), mine));
        shards.push_back(owned.back().get());
      }
      const std::vector<std::vector<std::uint64_t>> batch(brackets.size(), ks);
      const auto got = rd::dibms_select_bracketed(comm, shards, batch, brackets, options);
      for (std::size_t b = 0; b < brackets.size(); ++b)
        EXPECT_EQ(got[b], want) << to_string(d) << ", bracket " << b << ", B = " << options.buckets;
      ++i;
    }
  }
}

// A bracket around the answer costs one count and the gather: fewer bytes than the sampled
// Phase 1 (no sizes, ranges or samples to all-gather); a wrong n is an error on every rank.
TEST_P(Dibms, ABracketThatHoldsTheAnswerCostsOneCount) {
  rd::Communicator comm;
  const auto all = robustfit::data::make_distribution<double>(Distribution::normal, 200003, 5);
  const auto mine = rt::shard_of(all, "one_then_empty", comm.rank(), comm.size());
  const std::vector<std::uint64_t> ks{all.size() / 2};
  const double want = nth_element_reference(all, ks)[0];
  auto shard = rt::make_shard<double>(GetParam(), mine);
  rd::LocalShard* const shards[] = {shard.get()};
  rd::SelectionReport sampled, bracketed;
  const auto plain = rd::dibms_select_batched(comm, shards, std::span<const std::vector<std::uint64_t>>(&ks, 1), {}, &sampled);
  const rd::DibmsBracket near{all.size(), want * 0.9 - 0.01, want * 1.1 + 0.01};
  const auto got = rd::dibms_select_bracketed(comm, shards, std::span<const std::vector<std::uint64_t>>(&ks, 1),
                                              std::span<const rd::DibmsBracket>(&near, 1), {}, &bracketed);
  EXPECT_EQ(plain[0][0], want);
  EXPECT_EQ(got[0][0], want);
  EXPECT_EQ(bracketed.iterations, 1);
  EXPECT_LT(bracketed.bytes, sampled.bytes);
  const rd::DibmsBracket wrong{all.size() + 1, -1.0, 1.0};
  EXPECT_THROW(rd::dibms_select_bracketed(comm, shards, std::span<const std::vector<std::uint64_t>>(&ks, 1),
                                          std::span<const rd::DibmsBracket>(&wrong, 1)),
               std::invalid_argument);
  const rd::DibmsBracket reversed{all.size(), 1.0, -1.0};
  EXPECT_THROW(rd::dibms_select_bracketed(comm, shards, std::span<const std::vector<std::uint64_t>>(&ks, 1),
                                          std::span<const rd::DibmsBracket>(&reversed, 1)),
               std::invalid_argument);
}

TEST_P(Dibms, RankOutOfRangeIsAnErrorOnEveryRank) {
  rd::Communicator comm;
  const std::vector<double> all{3, 1, 2};
  const auto shard = local_shard<double>(rt::shard_of(all, "even", comm.rank(), comm.size()));
  const std::vector<std::uint64_t> ks{3};
  EXPECT_THROW(rd::dibms_select(comm, *shard, ks), std::invalid_argument);
  EXPECT_THROW(rd::cutting_plane_select(comm, *shard, 3), std::invalid_argument);
}

TEST_P(Dibms, NanOnOneRankFailsThatRankAndStopsTheOthers) {
  rd::Communicator comm;
  std::vector<double> mine{1.0, 2.0};
  if (comm.rank() == comm.size() - 1) mine.push_back(std::numeric_limits<double>::quiet_NaN());
  try {
    comm.agree([&] { return local_shard<double>(mine); });
    ADD_FAILURE() << "no error";
  } catch (const rd::PeerFailure& e) {
    EXPECT_NE(comm.rank(), comm.size() - 1);
    EXPECT_EQ(e.failed_rank(), comm.size() - 1);
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(comm.rank(), comm.size() - 1);
    EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos) << e.what();
  }
}

TEST_P(CuttingPlane, EveryDistributionEverySplitMatchesNthElement) {
  rd::Communicator comm;
  rd::CuttingPlaneOptions small;
  small.small_bracket = 64;  // many Kelley steps before the bracket is gathered
  for (Distribution d : robustfit::data::all_distributions()) {
    const auto all = robustfit::data::make_distribution<double>(d, 20011, 9);
    for (const char* split : rt::kSplits) {
      const auto shard = local_shard<double>(rt::shard_of(all, split, comm.rank(), comm.size()));
      for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{137}, std::uint64_t{all.size() / 2}, std::uint64_t{all.size() - 1}}) {
        rd::SelectionReport report;
        const double got = rd::cutting_plane_select(comm, *shard, k, small, &report);
        EXPECT_EQ(got, nth_element_reference(all, {k})[0]) << to_string(d) << " split " << split << " k " << k;
        EXPECT_LE(report.gathered, small.small_bracket);
        // One all-reduce of five numbers per step, then the bracket.
        EXPECT_LE(report.bytes, 8 + static_cast<std::uint64_t>(report.iterations) * 40 + 4 + 8 * report.gathered)
            << to_string(d);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Dibms, ::testing::Values(rt::ShardBackend::cpu, rt::ShardBackend::cuda), rt::backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, CuttingPlane, ::testing::Values(rt::ShardBackend::cpu, rt::ShardBackend::cuda),
                         rt::backend_name);

}  // namespace
