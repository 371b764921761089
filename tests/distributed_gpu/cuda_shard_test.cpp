// The CUDA LocalShard against the CPU one, call by call, in one process: a shard that forwards
// every call to both and expects the same answer (keys, counts, found singles, ranges, pivot
// sums bit for bit, the bracket's keys in the same order) runs DIBMS and the cutting plane on
// every test distribution, float and double values, the paper's parameters and B = 8 (many
// Phase 2 iterations, the repeated-value rule), and the answers equal std::nth_element. Skips
// without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../gpu/device_vector.hpp"
#include "../common/gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/distributed/cuda_local_shard.hpp"
#include "robustfit/distributed/selection.hpp"
#include "../distributed/reference.hpp"

namespace rd = robustfit::distributed;
using robustfit::data::Distribution;

namespace {

// Forwards each call to the CPU and the CUDA shard and expects equal answers; returns the CPU's.
class TeeShard final : public rd::LocalShard {
 public:
  TeeShard(std::unique_ptr<rd::LocalShard> cpu, std::unique_ptr<rd::LocalShard> cuda, std::string label)
      : cpu_(std::move(cpu)), cuda_(std::move(cuda)), label_(std::move(label)) {}
  int calls() const { return calls_; }
  // The CUDA shard's: over floats, Phase 1's fine pivots (DibmsOptions::pivot_intervals = 0).
  bool fine_pivots_free() const override { return cuda_->fine_pivots_free(); }

  void reset() override {
    cpu_->reset();
    cuda_->reset();
  }
  std::uint64_t size() const override { return same(cpu_->size(), cuda_->size(), "size"); }
  std::array<std::uint64_t, 2> key_range() const override { return same(cpu_->key_range(), cuda_->key_range(), "key_range"); }
  std::vector<std::uint64_t> sample(std::uint64_t count, std::uint64_t seed) const override {
    return same(cpu_->sample(count, seed), cuda_->sample(count, seed), "sample");
  }
  std::vector<std::uint64_t> count_buckets(std::span<const rd::KeyInterval> intervals, std::uint64_t buckets,
                                           bool segmented) override {
    return same(cpu_->count_buckets(intervals, buckets, segmented), cuda_->count_buckets(intervals, buckets, segmented),
                segmented ? "count_buckets (segmented)" : "count_buckets");
  }
  std::vector<std::uint64_t> reduce(std::span<const std::uint64_t> keep, std::span<const std::uint64_t> singles) override {
    return same(cpu_->reduce(keep, singles), cuda_->reduce(keep, singles), "reduce");
  }
  std::vector<std::uint64_t> segment_key_ranges() const override {
    return same(cpu_->segment_key_ranges(), cuda_->segment_key_ranges(), "segment_key_ranges");
  }
  std::vector<std::uint64_t> kept_candidates() const override {  // in any order: compared sorted
    std::vector<std::uint64_t> a = cpu_->kept_candidates(), b = cuda_->kept_candidates();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return same(a, b, "kept_candidates");
  }
  rd::PivotSums pivot_sums(std::uint64_t lo, std::uint64_t hi, std::uint64_t pivot) const override {
    const rd::PivotSums a = cpu_->pivot_sums(lo, hi, pivot), b = cuda_->pivot_sums(lo, hi, pivot);
    const std::vector<double> x{a.below, a.equal, a.above, a.sum_below, a.sum_above},
        y{b.below, b.equal, b.above, b.sum_below, b.sum_above};
    same(x, y, "pivot_sums");
    return a;
  }
  std::vector<std::uint64_t> keys_inside(std::uint64_t lo, std::uint64_t hi) const override {
    return same(cpu_->keys_inside(lo, hi), cuda_->keys_inside(lo, hi), "keys_inside");
  }

 private:
  template <class V>
  V same(V cpu, const V& cuda, const char* call) const {
    ++calls_;
    EXPECT_TRUE(cpu == cuda) << label_ << ": " << call << " differs (call " << calls_ << ")";
    return cpu;
  }

  std::unique_ptr<rd::LocalShard> cpu_, cuda_;
  std::string label_;
  mutable int calls_ = 0;
};

template <class T>
TeeShard tee(const std::vector<T>& values, const std::string& label) {
  return TeeShard(rd::make_cpu_local_shard<T>(values), rd::make_cuda_local_shard<T>(values), label);
}

using robustfit::distributed::testing::nth_element_reference;
using robustfit::distributed::testing::test_ranks;

template <class T>
void expect_same_calls(const std::vector<T>& all, const std::string& label) {
  rd::Communicator comm(MPI_COMM_SELF);  // this process alone, whatever mpirun started
  TeeShard shard = tee(all, label);
  const std::vector<std::uint64_t> ks = test_ranks(all.size());
  const std::vector<double> want = nth_element_reference(all, ks);
  // The default: band-aligned Phase 1 intervals (both shards' band-table counts, the placed
  // reduce); then the paper's pivots.
  rd::DibmsOptions few_bands;  // small, and the paper's iterations to the end: many iterations
  few_bands.buckets = 8, few_bands.sample_size = 16, few_bands.gather_candidates = 0;
  rd::DibmsOptions few = few_bands;
  few.pivot_intervals = 4, few.band_intervals = false;
  rd::DibmsOptions paper;  // the paper's Phase 1 and its iterations to the end
  paper.gather_candidates = 0, paper.pivot_intervals = 16, paper.band_intervals = false;
  rd::DibmsOptions fine = paper;  // 0: fine pivots for the CUDA shard over floats
  fine.pivot_intervals = 0;
  for (const rd::DibmsOptions& options : {rd::DibmsOptions{}, few_bands, few, paper, fine}) {
    EXPECT_EQ(rd::dibms_select(comm, shard, ks, options), want)
        << label << " B = " << options.buckets << ", gathered from " << options.gather_candidates
        << (options.band_intervals ? ", band-aligned" : "");
  }
  rd::CuttingPlaneOptions small;
  small.small_bracket = 64;
  for (std::uint64_t k : {std::uint64_t{0}, std::uint64_t{137}, std::uint64_t{all.size() / 2}, std::uint64_t{all.size() - 1}})
    EXPECT_EQ(rd::cutting_plane_select(comm, shard, k, small), nth_element_reference(all, {k})[0]) << label << " k " << k;
  EXPECT_GT(shard.calls(), 20) << label;
}

TEST(CudaLocalShard, EveryCallEqualsTheCpuShardOnEveryDistribution) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (Distribution d : robustfit::data::all_distributions()) {
    expect_same_calls(robustfit::data::make_distribution<double>(d, 30011, 7), std::string(to_string(d)));
    expect_same_calls(robustfit::data::make_distribution<float>(d, 20000, 3), std::string(to_string(d)) + " (float)");
  }
}

TEST(CudaLocalShard, LargeInputEqualsTheCpuShard) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (Distribution d : {Distribution::uniform, Distribution::two_values_95, Distribution::bucket_killer})
    expect_same_calls(robustfit::data::make_distribution<float>(d, 3000017, 5), std::string(to_string(d)) + " (3e6 floats)");
}

// Floats of every class (random bit patterns but NaN's: zeros, subnormals, infinities, normals of
// every exponent): Phase 1's sample holds subnormals, so the band passes take the 64-bit keys for
// those bands (band_table.hpp's kWideBand), beside the 32-bit form of the other distributions.
TEST(CudaLocalShard, FloatsOfEveryClassEqualTheCpuShard) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  std::mt19937 bits(17);
  std::vector<float> values{0.0f, -0.0f, 0.0f};
  while (values.size() < 40000) {
    const float v = std::bit_cast<float>(static_cast<std::uint32_t>(bits()));
    if (v == v) values.push_back(v);
  }
  expect_same_calls(values, "every class of float");
}

TEST(CudaLocalShard, EmptyAndSingleValueShards) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (const std::vector<double>& values : {std::vector<double>{}, std::vector<double>{-0.0}}) {
    TeeShard shard = tee(values, "n = " + std::to_string(values.size()));
    shard.reset();
    shard.size();
    shard.key_range();
    shard.sample(5, 1);
    const rd::KeyInterval narrow[] = {{(1ull << 63) - 4, (1ull << 63) + 3, 16, 0}};  // more buckets than keys
    shard.count_buckets(narrow, 16, false);
    const rd::KeyInterval intervals[] = {{0, 1ull << 63, 4, 0}, {(1ull << 63) + 1, ~0ull - 1, 4, 4}};
    shard.count_buckets(intervals, 8, false);
    const std::uint64_t keep[] = {3}, singles[] = {4};
    shard.reduce(keep, singles);
    shard.segment_key_ranges();
    shard.pivot_sums(0, ~0ull, 1ull << 63);
    shard.keys_inside(0, ~0ull);
    shard.reset();
    const rd::KeyInterval band[] = {{0x7ffull << 52, ~0ull >> 1, 4, 0}};  // -0.0's band (its key: the last bucket)
    shard.count_buckets(band, 4, false);
    const std::uint64_t last[] = {3};
    shard.reduce(last, {});
    shard.kept_candidates();
  }
}

TEST(CudaLocalShard, NanIsRefusedWithItsPosition) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::vector<float> values{1.0f, 2.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
  std::string cpu_message, host_message, device_message;
  try {
    rd::make_cpu_local_shard<float>(values);
  } catch (const std::invalid_argument& e) {
    cpu_message = e.what();
  }
  try {
    rd::make_cuda_local_shard<float>(values);
  } catch (const std::invalid_argument& e) {
    host_message = e.what();
  }
  const robustfit::testing::DeviceVector<float> d_values(values);
  try {
    rd::make_cuda_local_shard_from_device<float>(d_values.get(), values.size());
  } catch (const std::invalid_argument& e) {
    device_message = e.what();
  }
  EXPECT_NE(cpu_message.find("position 2"), std::string::npos) << cpu_message;
  EXPECT_EQ(host_message, cpu_message);
  EXPECT_EQ(device_message, cpu_message);
}

// A shard that refers to device memory instead of copying it: every call as the CPU shard's,
// on every distribution and on a value that is NaN.
TEST(CudaLocalShard, ShardOverDeviceValuesEqualsTheCpuShard) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  rd::Communicator comm(MPI_COMM_SELF);
  for (Distribution d : robustfit::data::all_distributions()) {
    const auto values = robustfit::data::make_distribution<double>(d, 30011, 23);
    const robustfit::testing::DeviceVector<double> d_values(values);
    TeeShard shard(rd::make_cpu_local_shard<double>(values), rd::make_cuda_local_shard_over_device<double>(d_values.get(), values.size()),
                   "over device values");
    const std::vector<std::uint64_t> ks = test_ranks(values.size());
    EXPECT_EQ(rd::dibms_select(comm, shard, ks), nth_element_reference(values, ks)) << to_string(d);
  }
  std::vector<double> with_nan{1, 2, std::nan(""), 4};
  const robustfit::testing::DeviceVector<double> d_nan(with_nan);
  try {
    rd::make_cuda_local_shard_over_device<double>(d_nan.get(), with_nan.size());
    ADD_FAILURE() << "a NaN was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("position 2"), std::string::npos) << e.what();
  }
}

// Float values read with 16-byte loads (visit_floats): shards over device floats that start at
// every alignment and end anywhere (an unaligned head, a tail, sizes below one load a thread),
// every call as the CPU shard's, the answers as std::nth_element's.
TEST(CudaLocalShard, FloatShardsAtEveryAlignmentEqualTheCpuShard) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  rd::Communicator comm(MPI_COMM_SELF);
  const auto all = robustfit::data::make_distribution<float>(Distribution::normal, 70003, 29);
  const robustfit::testing::DeviceVector<float> d_all(all);
  for (std::size_t offset = 0; offset < 4; ++offset) {
    for (std::size_t count : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{17},
                              std::size_t{4099}, std::size_t{70000}}) {
      const std::vector<float> values(all.begin() + static_cast<std::ptrdiff_t>(offset),
                                      all.begin() + static_cast<std::ptrdiff_t>(offset + count));
      TeeShard shard(rd::make_cpu_local_shard<float>(values),
                     rd::make_cuda_local_shard_over_device<float>(d_all.get() + offset, count),
                     "offset " + std::to_string(offset) + ", n = " + std::to_string(count));
      const std::vector<std::uint64_t> ks = count == 1 ? std::vector<std::uint64_t>{0} : test_ranks(count);
      EXPECT_EQ(rd::dibms_select(comm, shard, ks), nth_element_reference(values, ks)) << offset << " " << count;
    }
  }
}

TEST(CudaLocalShard, DeviceValuesGiveTheSameShardAsHostValues) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto values = robustfit::data::make_distribution<double>(Distribution::cauchy, 50000, 17);
  auto d_values = std::make_unique<robustfit::testing::DeviceVector<double>>(values);
  TeeShard shard(rd::make_cpu_local_shard<double>(values),
                 rd::make_cuda_local_shard_from_device<double>(d_values->get(), values.size()), "device values");
  d_values.reset();  // the shard keeps its own keys
  rd::Communicator comm(MPI_COMM_SELF);  // this process alone, whatever mpirun started
  const std::vector<std::uint64_t> ks = test_ranks(values.size());
  EXPECT_EQ(rd::dibms_select(comm, shard, ks), nth_element_reference(values, ks));
}

}  // namespace
