#pragma once
// Picks and builds the engine for a backend request.
#include <memory>

#include "design_matrix.hpp"
#include "engine.hpp"
#include "robustfit/regression/options.hpp"

namespace robustfit::regression::detail {

// automatic: CUDA when this build has the CUDA engine and a device is usable, else CPU.
// Throws std::invalid_argument when `cuda` is requested but unavailable (saying why), or when
// the selection algorithm is not offered by the chosen backend.
std::unique_ptr<Engine> make_engine(const ModelData& data, Backend backend, selection::Algorithm selection);

#ifdef ROBUSTFIT_CUDA_ENGINE
std::unique_ptr<Engine> make_cuda_engine(const ModelData& data, selection::Algorithm selection);
#endif

}  // namespace robustfit::regression::detail
