#pragma once
// The phase stopwatch and developer trace (ROBUSTFIT_TRACE) live in common, shared with the CLI.
#include "robustfit/common/stopwatch.hpp"

namespace robustfit::regression::detail {
using common::Stopwatch;
using common::trace;
using common::tracing;
}  // namespace robustfit::regression::detail
