#pragma once
// The distributed selection tests run once per LocalShard backend: the CPU shard everywhere, the
// CUDA shard where this build has CUDA and the rank a GPU (skipped otherwise, on every rank
// alike when the ranks' machines are alike, as on one host).
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>

#include "robustfit/distributed/cuda_local_shard.hpp"
#include "robustfit/distributed/local_shard.hpp"
#include "robustfit/selection/gpu.hpp"

namespace robustfit::testing {

enum class ShardBackend { cpu, cuda };

inline std::string backend_name(const ::testing::TestParamInfo<ShardBackend>& info) {
  return info.param == ShardBackend::cpu ? "cpu" : "cuda";
}

template <class T>
std::unique_ptr<distributed::LocalShard> make_shard(ShardBackend backend, std::span<const T> values) {
  return backend == ShardBackend::cpu ? distributed::make_cpu_local_shard<T>(values)
                                      : distributed::make_cuda_local_shard<T>(values);
}

// A fixture over the backends; SetUp skips the CUDA cases without a device.
class OnEveryBackend : public ::testing::TestWithParam<ShardBackend> {
 protected:
  void SetUp() override {
    if (GetParam() == ShardBackend::cuda && !selection::cuda_available())
      GTEST_SKIP() << "no CUDA device: " << selection::cuda_device_description();
  }
  template <class T>
  std::unique_ptr<distributed::LocalShard> local_shard(std::span<const T> values) const {
    return make_shard<T>(GetParam(), values);
  }
};

}  // namespace robustfit::testing
