// Sampled multiselection (selection/src/cuda/sampled_multi_select.cu) returns exactly what a
// sort of the input gives, for every distribution of docs/BENCHMARKS.md (ties, all equal,
// {1, 2} with 95 % ones, huge outliers, ±0 and ±inf), n from 1 to 2^22 and 1 to 10^4 ranks
// (repeated, unordered, 0 and n-1), float and double; through the public entry points and
// with parameters that force its rare paths: the fallback to one sort, one edge, a one-range
// table, a tiny sample. NaN inputs are rejected; the input is left as it was.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/cuda/select.hpp"
#include "selection/src/cuda/key_traits.cuh"
#include "selection/src/cuda/sampled_multi_select.cuh"
#include "selection/src/cuda/workspace_slots.cuh"

namespace {

namespace detail = robustfit::selection::cuda::detail;
namespace gpu = robustfit::selection::cuda;
using robustfit::data::Distribution;
using robustfit::selection::Algorithm;
using robustfit::testing::DeviceVector;

struct Case {
  const char* name;
  detail::SampledMultiParams params;
};

// The band table first (the default: band_multi_select.cu), the edges where it declines.
detail::SampledMultiParams edges_only(detail::SampledMultiParams p) {
  p.band_ranges = 0;
  return p;
}
detail::SampledMultiParams bands(int ranges, int sample = 1 << 15, double fraction = 0.5, long long capacity = -1,
                                 int blocks_per_sm = 0) {
  detail::SampledMultiParams p;
  p.band_blocks_per_sm = blocks_per_sm;
  p.band_ranges = ranges;
  p.band_sample_size = sample;
  p.max_candidate_fraction = fraction;
  p.initial_capacity = capacity;
  return p;
}

// The band form's separate kernels (band_multi_select.cu), where the one launch would answer.
detail::SampledMultiParams separate(detail::SampledMultiParams p) {
  p.band_one_launch_below = 0;
  return p;
}

// Defaults (the band table in one launch below 2^26 values, the segmented finish); then the edges alone: always the fallback; one edge (three buckets: everything is
// a candidate, many ranks share a bucket, segments of half the input); a table of one range
// (binary search over all edges); a tiny sample (most ranks far from an edge); the largest edge
// set and table (the most shared memory per block); the first version's finish (CUB sort of
// all candidates); a one-key candidate buffer (the segmented finish's second compaction); one
// edge with a one-key buffer and the sort finish; the interleaved counting read (with 13 search
// steps over a one-range table, and with three edges); the one-block samples (16384 and 8192
// keys), the latter with three blocks per multiprocessor; few edges (segments long enough for the
// first digit to be counted by several blocks per rank: from 2^19 values with 16 edges); one
// edge with the first digit counted by one block per rank. The band table's: a tiny sample
// (ranges of few sampled keys), 16 ranges (long segments, many candidates), a one-key buffer
// (the second compaction), more ranges than it holds and no room for candidates (the edges
// answer: the second then sorts), one block of the reads per multiprocessor; the separate
// kernels (the one launch declines to them past 2^26 values, 1024 ranks, or a candidate buffer
// too small), and their retry.
const Case kCases[] = {{"default", {}},
                       {"forced fallback", edges_only({1 << 15, 4096, 8192, -1.0})},
                       {"one edge", edges_only({1 << 15, 1, 8192, 2.0})},
                       {"one-range table", edges_only({1 << 12, 4096, 1, 2.0})},
                       {"tiny sample", edges_only({7, 3, 2, 2.0})},
                       {"largest tables", edges_only({1 << 15, 8192, 16384, 2.0})},
                       {"sort finish", edges_only({1 << 15, 0, 8192, 0.5, false})},
                       {"retry", edges_only({1 << 15, 0, 8192, 0.5, true, 1})},
                       {"one edge, retry", edges_only({1 << 15, 1, 8192, 2.0, true, 1})},
                       {"one edge, sort finish", edges_only({1 << 15, 1, 8192, 2.0, false})},
                       {"interleaved count", edges_only({1 << 15, 0, 8192, 0.5, true, -1, true})},
                       {"interleaved, one-range table", edges_only({1 << 12, 4096, 1, 2.0, true, -1, true})},
                       {"interleaved, tiny sample", edges_only({7, 3, 2, 2.0, true, -1, true})},
                       {"block sample", edges_only({1 << 14, 0, 8192, 0.5, true, -1, false, 2, true})},
                       {"block sample 8192, interleaved, 3 blocks", edges_only({1 << 13, 2048, 4096, 0.5, true, -1, true, 3, true})},
                       {"16 edges (first digit split)", edges_only({1 << 15, 16, 8192, 2.0})},
                       {"one edge, first digit unsplit", edges_only({1 << 15, 1, 8192, 2.0, true, -1, false, 0, false, false})},
                       {"edges only", edges_only({})},
                       {"bands, tiny sample", bands(8192, 7, 2.0)},
                       {"bands, 16 ranges", bands(16, 1 << 15, 2.0)},
                       {"bands, retry", bands(8192, 1 << 15, 0.5, 1)},
                       {"bands, most ranges (the edges answer)", separate(bands(detail::kBandMaxRanges))},
                       {"bands, no room (the edges, then one sort)", bands(8192, 1 << 15, -1.0)},
                       {"bands, one block an SM", bands(8192, 1 << 15, 0.5, -1, 1)},
                       {"bands, separate kernels", separate({})},
                       {"bands, separate kernels, retry", separate(bands(8192, 1 << 15, 0.5, 1))}};

// `count` ranks: 0, n-1, repeats, out of order, evenly spaced and random.
std::vector<std::size_t> ranks_for(std::size_t n, std::size_t count, std::mt19937_64& rng) {
  std::vector<std::size_t> ks{0, n - 1, n / 2, n / 2, 0};
  for (std::size_t i = 0; ks.size() < count; ++i)
    ks.push_back(i % 2 == 0 ? (i * 7919) % n : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng));
  ks.resize(count);
  return ks;
}

template <class T>
void expect_exact(const std::vector<T>& values, std::size_t count, const std::string& label,
                  std::initializer_list<const Case*> cases, gpu::Workspace& workspace) {
  const std::size_t n = values.size();
  std::mt19937_64 rng(n * 31 + count);
  const std::vector<std::size_t> ks = ranks_for(n, count, rng);
  std::vector<T> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  DeviceVector<T> device(values);
  std::vector<T> got(count);
  for (const Case* c : cases) {
    ASSERT_FALSE(detail::sampled_multi_select_checked<T>(device.get(), n, ks.data(), count, got.data(), c->params,
                                                         workspace, nullptr))
        << label << ": NaN reported";
    for (std::size_t i = 0; i < count; ++i)
      ASSERT_EQ(got[i], sorted[ks[i]]) << label << " (" << c->name << ") n=" << n << " ranks=" << count
                                       << " k=" << ks[i];
  }
  gpu::kth_smallest_many(device.get(), n, ks.data(), count, got.data(), Algorithm::sampled_multi, workspace);
  for (std::size_t i = 0; i < count; ++i)
    ASSERT_EQ(got[i], sorted[ks[i]]) << label << " (public) n=" << n << " k=" << ks[i];
  ASSERT_EQ(device.download(), values) << label << ": the input was modified";
}

template <class T>
void sweep(std::initializer_list<std::size_t> sizes, std::initializer_list<std::size_t> counts,
           std::initializer_list<const Case*> cases) {
  gpu::Workspace workspace;
  std::uint64_t seed = 70;
  for (const Distribution d : robustfit::data::all_distributions()) {
    for (const std::size_t n : sizes) {
      if (d == Distribution::bucket_killer && n < 65) continue;  // needs 65 powers
      const auto values = robustfit::data::make_distribution<T>(d, n, ++seed, 16);
      for (const std::size_t count : counts) {
        expect_exact(values, count, std::string(robustfit::data::to_string(d)), cases, workspace);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

const Case* const kAll[] = {&kCases[0],  &kCases[1],  &kCases[2],  &kCases[3],  &kCases[4],  &kCases[5],
                            &kCases[6],  &kCases[7],  &kCases[8],  &kCases[9],  &kCases[10], &kCases[11],
                            &kCases[12], &kCases[13], &kCases[14], &kCases[15], &kCases[16], &kCases[17],
                            &kCases[18], &kCases[19], &kCases[20], &kCases[21], &kCases[22], &kCases[23],
                            &kCases[24], &kCases[25]};

TEST(GpuSampledMulti, EveryDistributionSmallAndMediumFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<float>({1, 2, 3, 17, 1000, 4099, 65537}, {1, 7, 101},
               {kAll[0], kAll[1], kAll[2], kAll[3], kAll[4], kAll[5], kAll[6], kAll[7], kAll[8], kAll[9], kAll[10],
                kAll[11], kAll[12], kAll[13], kAll[14], kAll[17], kAll[18], kAll[19], kAll[20], kAll[21], kAll[22], kAll[23],
                kAll[24], kAll[25]});
}

TEST(GpuSampledMulti, EveryDistributionSmallAndMediumDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<double>({1, 2, 3, 17, 1000, 4099, 65537}, {1, 7, 101},
                {kAll[0], kAll[1], kAll[2], kAll[3], kAll[4], kAll[5], kAll[6], kAll[7], kAll[8], kAll[9], kAll[10],
                kAll[11], kAll[12], kAll[13], kAll[14], kAll[17], kAll[18], kAll[19], kAll[20], kAll[21], kAll[22], kAll[23],
                kAll[24], kAll[25]});
}

TEST(GpuSampledMulti, EveryDistributionLargeManyRanksFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<float>({300001, std::size_t{1} << 22}, {101, 1001, 10000}, {kAll[0], kAll[1], kAll[6], kAll[7], kAll[10], kAll[13], kAll[14], kAll[15], kAll[16], kAll[17], kAll[19], kAll[20], kAll[21], kAll[23], kAll[24]});
}

TEST(GpuSampledMulti, EveryDistributionLargeManyRanksDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<double>({300001, std::size_t{1} << 22}, {101, 1001, 10000}, {kAll[0], kAll[1], kAll[6], kAll[7], kAll[10], kAll[13], kAll[14], kAll[15], kAll[16], kAll[17], kAll[19], kAll[20], kAll[21], kAll[23], kAll[24]});
}

// Many ranks in one bucket (1001 consecutive ranks around the median: one or two buckets, each
// selected by many blocks) and huge segments (one edge: about half of 2^22 + 3 values per
// bucket, one block selecting in each), on both finishes.
template <class T>
void expect_crowded_and_huge_buckets() {
  gpu::Workspace workspace;
  const std::size_t n = (std::size_t{1} << 22) + 3;
  for (const Distribution d : {Distribution::uniform, Distribution::normal, Distribution::few_huge}) {
    const auto values = robustfit::data::make_distribution<T>(d, n, 77);
    std::vector<T> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    DeviceVector<T> device(values);
    std::vector<std::size_t> crowded(1001);
    for (std::size_t i = 0; i < crowded.size(); ++i) crowded[i] = n / 2 - 500 + i;
    const std::vector<std::size_t> spread{0, 1, n / 7, n / 2 - 1, n / 2, n / 2 + 1, n - 2, n - 1, 12345, n / 3, n / 2};
    for (const Case* c : {&kCases[0], &kCases[6], &kCases[2], &kCases[8], &kCases[9], &kCases[10], &kCases[13],
                          &kCases[15], &kCases[16], &kCases[17], &kCases[19], &kCases[20]}) {
      const std::vector<std::size_t>* lists[] = {&crowded, &spread};
      for (const std::vector<std::size_t>* ks : lists) {
        std::vector<T> got(ks->size());
        ASSERT_FALSE(detail::sampled_multi_select_checked<T>(device.get(), n, ks->data(), ks->size(), got.data(),
                                                             c->params, workspace, nullptr));
        for (std::size_t i = 0; i < ks->size(); ++i)
          ASSERT_EQ(got[i], sorted[(*ks)[i]]) << robustfit::data::to_string(d) << " (" << c->name << ") k=" << (*ks)[i];
      }
    }
  }
}

TEST(GpuSampledMulti, CrowdedAndHugeBucketsFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_crowded_and_huge_buckets<float>();
}

TEST(GpuSampledMulti, CrowdedAndHugeBucketsDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_crowded_and_huge_buckets<double>();
}

// ±0 and ties across bucket edges: values drawn from {-0, +0, ±1, ±1e30, ±inf, smallest
// subnormal} and a uniform background, so equal values and -0/+0 meet the open buckets' radix
// finish as well as the equality buckets; the answer must compare equal to sort's.
template <class T>
void expect_signed_zeros_and_specials() {
  gpu::Workspace workspace;
  const std::size_t n = std::size_t{1} << 21;
  std::mt19937_64 rng(3);
  const T specials[] = {T(-0.0), T(0.0), T(1), T(-1), T(1e30), T(-1e30), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(), std::numeric_limits<T>::denorm_min()};
  std::vector<T> values(n);
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = i % 3 == 0 ? specials[rng() % 9] : static_cast<T>(uniform(rng));
  std::vector<T> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  DeviceVector<T> device(values);
  std::vector<std::size_t> ks(401);
  for (std::size_t i = 0; i < ks.size(); ++i) ks[i] = i * (n - 1) / 400;
  for (const Case* c : {&kCases[0], &kCases[6], &kCases[7], &kCases[4], &kCases[10], &kCases[12], &kCases[14],
                        &kCases[17], &kCases[18], &kCases[19]}) {
    std::vector<T> got(ks.size());
    ASSERT_FALSE(detail::sampled_multi_select_checked<T>(device.get(), n, ks.data(), ks.size(), got.data(), c->params,
                                                         workspace, nullptr));
    for (std::size_t i = 0; i < ks.size(); ++i) ASSERT_EQ(got[i], sorted[ks[i]]) << c->name << " k=" << ks[i];
  }
}

TEST(GpuSampledMulti, SignedZerosAndSpecialsFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_signed_zeros_and_specials<float>();
}

TEST(GpuSampledMulti, SignedZerosAndSpecialsDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_signed_zeros_and_specials<double>();
}

TEST(GpuSampledMulti, AutoAndOneRankAgreeWithSort) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  gpu::Workspace workspace;
  const std::size_t n = std::size_t{1} << 21;  // large enough for auto to choose sampled multiselection
  const auto values = robustfit::data::make_distribution<float>(Distribution::normal, n, 5);
  DeviceVector<float> device(values);
  std::vector<float> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> ks(101);
  for (std::size_t i = 0; i < ks.size(); ++i) ks[i] = i * (n - 1) / 100;
  std::vector<float> got(ks.size());
  gpu::kth_smallest_many(device.get(), n, ks.data(), ks.size(), got.data(), Algorithm::automatic, workspace);
  for (std::size_t i = 0; i < ks.size(); ++i) ASSERT_EQ(got[i], sorted[ks[i]]) << "auto k=" << ks[i];
  for (const std::size_t k : {std::size_t{0}, n / 3, n - 1})
    EXPECT_EQ(gpu::kth_smallest(device.get(), n, k, Algorithm::sampled_multi, workspace), sorted[k]) << k;
}

// A pointer one element past an aligned one: the passes read scalars, so any offset works.
TEST(GpuSampledMulti, UnalignedInput) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  gpu::Workspace workspace;
  const std::size_t n = 100003;
  const auto values = robustfit::data::make_distribution<double>(Distribution::cauchy, n + 1, 8);
  DeviceVector<double> device(values);
  std::vector<double> sorted(values.begin() + 1, values.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> ks{0, 1, n / 2, n - 1, 12345};
  std::vector<double> got(ks.size());
  gpu::kth_smallest_many(device.get() + 1, n, ks.data(), ks.size(), got.data(), Algorithm::sampled_multi, workspace);
  for (std::size_t i = 0; i < ks.size(); ++i) EXPECT_EQ(got[i], sorted[ks[i]]) << ks[i];
}

// The band table alone: it answers smooth inputs exactly; on ties and spans its table cannot
// split (all equal, {1, 2} with 95 % ones, a normal of width 1 around 1000, whose values share
// one exponent band) the one launch refines the crowded ranges and answers, also after the
// separate kernels' verdict (above the one launch's sizes); without that hand-over the separate
// kernels give the call to the edges.
template <class T>
void expect_band_answers_or_declines() {
  gpu::Workspace workspace;
  const std::size_t n = (std::size_t{1} << 22) + 7;
  std::vector<std::size_t> ks(101);
  for (std::size_t i = 0; i < ks.size(); ++i) ks[i] = i * (n - 1) / 100;
  // The one launch (the default at this size), the separate kernels handing ties to it, then the
  // separate kernels alone.
  detail::SampledMultiParams alone = separate({});
  alone.band_one_launch_on_ties = false;
  auto run = [&](const std::vector<T>& values, const char* label) {
    DeviceVector<T> device(values);
    std::vector<T> got(ks.size()), sorted = values;
    std::sort(sorted.begin(), sorted.end());
    std::vector<detail::BandOutcome> outcomes;
    for (const detail::SampledMultiParams& params : {detail::SampledMultiParams{}, separate({}), alone}) {
      outcomes.push_back(detail::band_multi_select<T>(device.get(), n, ks.data(), ks.size(), got.data(), params,
                                                      workspace, nullptr));
      if (outcomes.back() == detail::BandOutcome::answered) {
        for (std::size_t i = 0; i < ks.size(); ++i) EXPECT_EQ(got[i], sorted[ks[i]]) << label << " k=" << ks[i];
      }
    }
    return outcomes;
  };
  using Outcomes = std::vector<detail::BandOutcome>;
  const Outcomes all_answer{detail::BandOutcome::answered, detail::BandOutcome::answered,
                             detail::BandOutcome::answered};
  const Outcomes refined{detail::BandOutcome::answered, detail::BandOutcome::answered,
                         detail::BandOutcome::use_edges};
  for (const Distribution d : {Distribution::uniform, Distribution::normal, Distribution::cauchy})
    EXPECT_EQ(run(robustfit::data::make_distribution<T>(d, n, 41), std::string(robustfit::data::to_string(d)).c_str()),
              all_answer)
        << robustfit::data::to_string(d);
  for (const Distribution d : {Distribution::all_equal, Distribution::two_values_95})
    EXPECT_EQ(run(robustfit::data::make_distribution<T>(d, n, 42), "ties"), refined) << robustfit::data::to_string(d);
  std::vector<T> narrow = robustfit::data::make_distribution<T>(Distribution::normal, n, 43);
  for (T& v : narrow) v = T(1000) + v;
  EXPECT_EQ(run(narrow, "narrow normal"), refined);
}

TEST(GpuSampledMulti, BandTableAnswersSmoothInputsAndDeclinesTies) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_band_answers_or_declines<float>();
  expect_band_answers_or_declines<double>();
}

// The one launch alone: it answers exactly (ties too: band_refine.cuh), reports NaN, and declines
// (nullopt: the separate kernels answer) past its ranks, its size limit and its buffer.
template <class T>
void expect_one_launch_answers_or_declines() {
  gpu::Workspace workspace;
  const std::size_t n = (std::size_t{1} << 21) + 5;
  const std::vector<T> values = robustfit::data::make_distribution<T>(Distribution::normal, n, 61);
  std::vector<T> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  DeviceVector<T> device(values);
  auto one_launch = [&](const std::vector<std::size_t>& ks, const detail::SampledMultiParams& params,
                        const DeviceVector<T>& input) {
    std::vector<T> got(ks.size());
    const auto outcome = detail::band_multi_select_one_launch<T>(input.get(), n, ks.data(), ks.size(), got.data(),
                                                                 params, workspace, nullptr);
    if (outcome == detail::BandOutcome::answered) {
      for (std::size_t i = 0; i < ks.size(); ++i) EXPECT_EQ(got[i], sorted[ks[i]]) << "k=" << ks[i];
    }
    return outcome;
  };
  std::mt19937_64 rng(62);
  for (const std::size_t count : {std::size_t{1}, std::size_t{101}, std::size_t(detail::kOneLaunchMaxRanks)})
    EXPECT_EQ(one_launch(ranks_for(n, count, rng), {}, device), detail::BandOutcome::answered) << count << " ranks";
  EXPECT_EQ(one_launch(ranks_for(n, detail::kOneLaunchMaxRanks + 1, rng), {}, device), std::nullopt);
  detail::SampledMultiParams limited;
  limited.band_one_launch_below = n;
  EXPECT_EQ(one_launch({0, n / 2}, limited, device), std::nullopt);
  detail::SampledMultiParams tiny_buffer;
  tiny_buffer.initial_capacity = 1;
  EXPECT_EQ(one_launch({0, n / 2, n - 1}, tiny_buffer, device), std::nullopt);
  std::vector<T> with_nan = values;
  with_nan[n - 1] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_EQ(one_launch({0, n / 2}, {}, DeviceVector<T>(with_nan)), detail::BandOutcome::nan);
}

TEST(GpuSampledMulti, OneLaunchAnswersOrDeclines) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_one_launch_answers_or_declines<float>();
  expect_one_launch_answers_or_declines<double>();
}

// The one launch's refinement of crowded ranges (band_refine.cuh), each split kind against a
// sort: the tie split (all equal; {1, 2} with 95 % ones; 16 distinct values; 30 % of the values
// 1.5 among uniform ones in [1, 2), with the ranks just below and above the tie, which fall in
// the cells beside it); the even split (the bucket killer: n - 65 values in 2^-32 [1, 1 + 2^-10);
// 4096 keys above 1, one ulp apart for floats (cells one key wide: answered without copying),
// 2^28 ulps for doubles; a normal of width 1 around 1000). The ranges are split before the
// counting read where the sample shows long runs (all of these), after it otherwise (100
// distinct values: 1 % each, crowded but no long run), or both (half the values one value, the
// others 230 integers: ranges of ~18 sampled keys, split before where the sample holds more than
// 16). More crowded ranges than it has slots (400 distinct values, 1001 ranks): the edges answer.
template <class T>
void expect_one_launch_refines() {
  gpu::Workspace workspace;
  const std::size_t n = (std::size_t{1} << 21) + 3;
  std::vector<std::size_t> ks(101);
  for (std::size_t i = 0; i < ks.size(); ++i) ks[i] = i * (n - 1) / 100;
  ks.push_back(n / 2 + 1);
  auto one_launch = [&](const std::vector<T>& values, const std::vector<std::size_t>& ranks, const std::string& label) {
    DeviceVector<T> device(values);
    std::vector<T> got(ranks.size());
    const auto outcome = detail::band_multi_select_one_launch<T>(device.get(), n, ranks.data(), ranks.size(),
                                                                 got.data(), {}, workspace, nullptr);
    if (outcome == detail::BandOutcome::answered) {
      std::vector<T> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(got[i], sorted[ranks[i]]) << label << " k=" << ranks[i];
    }
    return outcome;
  };
  auto make = [&](Distribution d, std::size_t distinct = 16) {
    return robustfit::data::make_distribution<T>(d, n, 71, distinct);
  };
  for (const Distribution d : {Distribution::all_equal, Distribution::two_values_95, Distribution::distinct_d,
                               Distribution::bucket_killer})
    EXPECT_EQ(one_launch(make(d), ks, std::string(robustfit::data::to_string(d))), detail::BandOutcome::answered)
        << robustfit::data::to_string(d);
  std::mt19937_64 rng(72);
  std::vector<T> tie_among = make(Distribution::uniform);
  for (T& v : tie_among) v = rng() % 10 < 3 ? T(1.5) : T(1) + v;
  const auto below_tie = static_cast<std::size_t>(std::count_if(tie_among.begin(), tie_among.end(),
                                                                [](T v) { return v < T(1.5); }));
  const auto to_tie_end = static_cast<std::size_t>(std::count_if(tie_among.begin(), tie_among.end(),
                                                                 [](T v) { return v <= T(1.5); }));
  std::vector<std::size_t> around_tie = ks;
  around_tie.insert(around_tie.end(), {below_tie - 2, below_tie - 1, below_tie, to_tie_end - 1, to_tie_end,
                                       to_tie_end + 1});
  EXPECT_EQ(one_launch(tie_among, around_tie, "a tie among uniform values"), detail::BandOutcome::answered);
  const T step = std::numeric_limits<T>::epsilon() * (sizeof(T) == 4 ? T(1) : T(1 << 28));
  std::vector<T> close(n);
  for (T& v : close) v = T(1) + T(rng() % 4096) * step;
  EXPECT_EQ(one_launch(close, ks, "4096 close keys"), detail::BandOutcome::answered);
  std::vector<T> narrow = make(Distribution::normal);
  for (T& v : narrow) v = T(1000) + v;
  EXPECT_EQ(one_launch(narrow, ks, "narrow normal"), detail::BandOutcome::answered);
  EXPECT_EQ(one_launch(make(Distribution::distinct_d, 100), ks, "100 distinct values"),
            detail::BandOutcome::answered);
  std::vector<T> half_tie = make(Distribution::distinct_d, 230);
  for (T& v : half_tie) v = rng() % 2 == 0 ? T(0.5) : v + T(1);
  EXPECT_EQ(one_launch(half_tie, ks, "half one value, half 230 integers"), detail::BandOutcome::answered);
  std::vector<std::size_t> many(1001);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = i * (n - 1) / 1000;
  EXPECT_EQ(one_launch(make(Distribution::distinct_d, 400), many, "400 distinct values"),
            detail::BandOutcome::use_edges);
}

TEST(GpuSampledMulti, OneLaunchRefinesCrowdedRanges) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_one_launch_refines<float>();
  expect_one_launch_refines<double>();
}

// Where the band form declines, the edges sort a sample of this input alone. The band form
// draws band_sample_size keys into the slot the edges reuse and the edges' sample is larger: the
// rest was left from an earlier call until session 9 (exact answers from poor buckets: 101 ranks
// of 2^28 bucket-killer floats 6.6 ms against 1.4). A call on values in [0, 1) fills the slot;
// then {1, 2} ties, which the separate kernels hand to the edges: every key of the edges' sorted
// sample must be 1 or 2.
template <class T>
void expect_edges_sample_from_this_input() {
  using Key = typename detail::KeyTraits<T>::Key;
  gpu::Workspace workspace;
  const std::size_t n = std::size_t{1} << 20;
  const std::vector<std::size_t> ks{n / 4, n / 2, 3 * n / 4};
  std::vector<T> got(ks.size());
  DeviceVector<T> earlier(robustfit::data::make_distribution<T>(Distribution::uniform, n, 81));
  ASSERT_FALSE(detail::sampled_multi_select_checked(earlier.get(), n, ks.data(), ks.size(), got.data(),
                                                    edges_only({}), workspace, nullptr));
  const std::vector<T> ties = robustfit::data::make_distribution<T>(Distribution::two_values_95, n, 82);
  DeviceVector<T> device(ties);
  detail::SampledMultiParams params = separate({});
  params.band_one_launch_on_ties = false;
  ASSERT_LT(params.band_sample_size, params.sample_size);  // else the edges reuse the band's keys whole
  ASSERT_FALSE(detail::sampled_multi_select_checked(device.get(), n, ks.data(), ks.size(), got.data(), params,
                                                    workspace, nullptr));
  std::vector<T> sorted = ties;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < ks.size(); ++i) EXPECT_EQ(got[i], sorted[ks[i]]) << ks[i];
  std::vector<Key> sample(static_cast<std::size_t>(params.sample_size));
  ASSERT_EQ(cudaMemcpy(sample.data(), workspace.device_as<Key>(detail::kSampledMultiSorted, sample.size()),
                       sample.size() * sizeof(Key), cudaMemcpyDeviceToHost),
            cudaSuccess);
  const auto foreign = std::count_if(sample.begin(), sample.end(), [](Key key) {
    const T value = detail::KeyTraits<T>::from_key(key);
    return value != T(1) && value != T(2);
  });
  EXPECT_EQ(foreign, 0) << "of " << sample.size() << " sampled keys";
}

TEST(GpuSampledMulti, EdgesSampleOnlyThisInput) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_edges_sample_from_this_input<float>();
  expect_edges_sample_from_this_input<double>();
}

template <class T>
void expect_nan_rejected() {
  gpu::Workspace workspace;
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 20}) {
    for (const T nan : {std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN()}) {
      std::vector<T> values = robustfit::data::make_distribution<T>(Distribution::uniform, n, 9);
      values[n / 2] = nan;
      DeviceVector<T> device(values);
      std::vector<std::size_t> ks{0, n / 2, n - 1};
      std::vector<T> got(ks.size());
      EXPECT_THROW(gpu::kth_smallest_many(device.get(), n, ks.data(), ks.size(), got.data(),
                                          Algorithm::sampled_multi, workspace),
                   std::invalid_argument)
          << "n=" << n;
      EXPECT_THROW(gpu::kth_smallest(device.get(), n, n / 2, Algorithm::sampled_multi, workspace),
                   std::invalid_argument);
    }
  }
}

TEST(GpuSampledMulti, NanRejectedFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_nan_rejected<float>();
}

TEST(GpuSampledMulti, NanRejectedDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_nan_rejected<double>();
}

}  // namespace
