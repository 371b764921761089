#pragma once
// Sorting on every hardware thread. Instantiated for float and double.
#include <span>

namespace robustfit::selection {

// Writes `values` sorted ascending to `sorted`: an LSD radix sort over fixed row chunks (below
// two chunks: std::sort). The order is total on the bits, so -0 comes before +0 and the result
// does not depend on the thread count. Precondition: no NaN (unchecked; where they would go is
// unspecified). Throws std::invalid_argument when the sizes differ.
template <class T>
void sort_parallel(std::span<const T> values, std::span<T> sorted);

}  // namespace robustfit::selection
