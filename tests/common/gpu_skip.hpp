#pragma once
// GPU tests skip themselves, with a clear message, where no CUDA device is usable.
#include <gtest/gtest.h>

#include "robustfit/selection/gpu.hpp"

#define ROBUSTFIT_REQUIRE_CUDA_DEVICE()                                                  \
  do {                                                                                   \
    if (!::robustfit::selection::cuda_available())                                       \
      GTEST_SKIP() << "no CUDA device: " << ::robustfit::selection::cuda_device_description(); \
  } while (0)
