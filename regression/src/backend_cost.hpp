#pragma once
// Private: the cost model behind --backend auto for the estimators (engine_factory.cpp).
#include <cstddef>

namespace robustfit::regression::detail {

// The size of a fit's candidate search: rows, coefficients (intercept included), subsets.
struct SearchSize {
  std::size_t n = 0, p = 0, subsets = 0;
};

// Whether the CUDA engine is expected to finish the search sooner than the CPU engine on
// `cpu_threads` threads. The one place where auto weighs the two; see backend_cost.cpp for
// the model and the measurements it rests on.
bool cuda_pays_off(const SearchSize& size, unsigned cpu_threads);

}  // namespace robustfit::regression::detail
