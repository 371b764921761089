// Device discovery never crashes: with or without a GPU, cuda_available() and the description
// answer, and they agree with each other.
#include <gtest/gtest.h>

#include "robustfit/selection/gpu.hpp"

TEST(GpuDiscovery, AnswersWithoutCrashing) {
  const bool available = robustfit::selection::cuda_available();
  const std::string description = robustfit::selection::cuda_device_description();
  EXPECT_FALSE(description.empty());
  if (!available) {
    EXPECT_EQ(description.find("(sm_"), std::string::npos) << description;
  }
}
