// The sample sorts' local sort on the GPU (mpi/local_sort.hpp's sort_on_gpu) against the host's
// sort_parallel, value for value (CUB counts -0 and +0 as equal, so their order may differ),
// through several staging chunks; skips without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "mpi/local_sort.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/selection/cpu_sort.hpp"
#include "robustfit/selection/gpu.hpp"

namespace rr = robustfit::regression;

TEST(LocalSortGpu, EqualsTheHostSort) {
  if (!rr::cuda_backend_available()) GTEST_SKIP() << "no CUDA device: " << robustfit::selection::cuda_device_description();
  robustfit::common::Random random(11);
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{3000017}}) {
    std::vector<double> values(n);
    for (double& v : values) {
      v = std::round(50 * random.normal()) / 4;
      if (v == 0) v = random.uniform() < 0.5 ? -0.0 : 0.0;
    }
    std::vector<double> want(n), got(n);
    robustfit::selection::sort_parallel<double>(values, want);
    std::string why;
    ASSERT_TRUE(rr::detail::sort_on_gpu(values, got, &why)) << n << ": " << why;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << n << " at " << i;
  }
}
