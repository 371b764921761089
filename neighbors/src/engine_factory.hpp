#pragma once
// Backend choice: automatic takes CUDA when built with it and a device is usable.
#include <memory>

#include "engine.hpp"

namespace robustfit::neighbors::detail {

// Throws std::invalid_argument when the asked backend/precision cannot run here (never a silent
// fall-back from float or cuda).
std::unique_ptr<Engine> make_engine(const RowMatrix& train, Metric metric, selection::Backend backend,
                                    Precision precision);

}  // namespace robustfit::neighbors::detail
