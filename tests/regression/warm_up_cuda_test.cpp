// When fit_lts starts the CUDA context beside the design's copy (engine_factory.hpp's
// warm_up_cuda_for): only where the search would run on the CUDA engine. A fit that stays on the
// CPU (asked for, chosen by auto for its size, or a CUDA request without a usable GPU, which
// make_engine then refuses) gets no thread, so it never waits for a context it does not use.
// Runs with or without a GPU.
#include <gtest/gtest.h>

#include "regression/src/engine_factory.hpp"
#include "robustfit/selection/gpu.hpp"

namespace robustfit::testing {
namespace {

using regression::Backend;
using regression::Precision;
using regression::detail::SearchSize;
using regression::detail::warm_up_cuda_for;

constexpr auto kAuto = selection::Algorithm::automatic;

TEST(WarmUpCuda, NoThreadForTheCpuBackend) {
  EXPECT_FALSE(warm_up_cuda_for(Backend::cpu, kAuto, Precision::double_precision, SearchSize{10000000, 11, 500}).joinable());
}

TEST(WarmUpCuda, NoThreadWhereAutoKeepsTheFitOnTheCpu) {
  // hbk's size: the cost model keeps it on the CPU whether or not there is a GPU.
  EXPECT_FALSE(warm_up_cuda_for(Backend::automatic, kAuto, Precision::double_precision, SearchSize{75, 4, 500}).joinable());
}

TEST(WarmUpCuda, AThreadExactlyWhereACudaSearchWillRun) {
  const bool gpu = selection::cuda_available();
  // Without a usable GPU make_engine refuses --backend cuda later; no thread now.
  EXPECT_EQ(warm_up_cuda_for(Backend::cuda, kAuto, Precision::double_precision, SearchSize{10000000, 11, 500}).joinable(), gpu);
  EXPECT_EQ(warm_up_cuda_for(Backend::automatic, kAuto, Precision::double_precision, SearchSize{10000000, 11, 500}).joinable(),
            gpu);
  // Float precision needs the CUDA engine: the same answer.
  EXPECT_EQ(warm_up_cuda_for(Backend::cuda, kAuto, Precision::single_precision, SearchSize{10000000, 11, 500}).joinable(), gpu);
}

}  // namespace
}  // namespace robustfit::testing
