// When FAST-MCD's standardized rows go to the device (engine_factory.hpp's
// standardized_rows_on_device): only where the search's engine would be the CUDA one, from 65536
// rows; a request the engine factory would refuse (no usable GPU) is left to it, so that the fit
// reports the same error at the same point as before. Runs without a GPU.
#include <gtest/gtest.h>

#include <Eigen/Core>

#include "regression/src/engine_factory.hpp"
#include "robustfit/selection/gpu.hpp"

namespace robustfit::testing {
namespace {

using regression::Backend;
using regression::detail::SearchSize;
using regression::detail::standardized_rows_on_device;

const Eigen::MatrixXd& large() {
  static const Eigen::MatrixXd X = Eigen::MatrixXd::Random(100000, 3);
  return X;
}

TEST(StandardizedRowsOnDevice, NoneForTheCpuBackend) {
  EXPECT_EQ(standardized_rows_on_device(large(), Backend::cpu, selection::Algorithm::automatic, SearchSize{100000, 3, 500}),
            nullptr);
}

TEST(StandardizedRowsOnDevice, NoneBelowTheRowThreshold) {
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(1000, 3);
  EXPECT_EQ(standardized_rows_on_device(X, Backend::automatic, selection::Algorithm::automatic, SearchSize{1000, 3, 500}),
            nullptr);
}

TEST(StandardizedRowsOnDevice, AnUnusableCudaRequestIsLeftToTheEngineFactory) {
  if (selection::cuda_available()) GTEST_SKIP() << "a usable GPU: the rows would go to it";
  // make_engine throws for this request (no usable GPU); the factory of the rows must not.
  EXPECT_EQ(standardized_rows_on_device(large(), Backend::cuda, selection::Algorithm::automatic, SearchSize{100000, 3, 500}),
            nullptr);
  EXPECT_EQ(standardized_rows_on_device(large(), Backend::automatic, selection::Algorithm::automatic,
                                        SearchSize{100000, 3, 500}),
            nullptr);
}

}  // namespace
}  // namespace robustfit::testing
