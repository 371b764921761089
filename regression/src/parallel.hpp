#pragma once
// A minimal static-partition parallel loop over candidates, on every hardware thread.
// Results never depend on the number of threads: each index is handled independently.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace robustfit::regression::detail {

inline unsigned worker_count(std::size_t tasks) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(hw, std::max<std::size_t>(tasks, 1)));
}

// Calls body(worker, index) for index in [0, count); `worker` < worker_count(count), so
// callers can keep one scratch buffer per worker. Rethrows the first exception.
template <class Body>
void parallel_for(std::size_t count, Body&& body) {
  const unsigned workers = worker_count(count);
  if (workers <= 1) {
    for (std::size_t i = 0; i < count; ++i) body(0u, i);
    return;
  }
  std::vector<std::exception_ptr> errors(workers);
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        for (std::size_t i = w; i < count; i += workers) body(w, i);
      } catch (...) {
        errors[w] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// std::sort on every hardware thread: sorted chunks, then pairwise in-place merges.
template <class T>
void parallel_sort(std::vector<T>& values) {
  const std::size_t chunks = std::min<std::size_t>(worker_count(values.size() / 65536 + 1), 64);
  std::vector<std::size_t> bounds(chunks + 1);
  for (std::size_t c = 0; c <= chunks; ++c) bounds[c] = c * values.size() / chunks;
  parallel_for(chunks, [&](unsigned, std::size_t c) {
    std::sort(values.begin() + static_cast<std::ptrdiff_t>(bounds[c]), values.begin() + static_cast<std::ptrdiff_t>(bounds[c + 1]));
  });
  for (std::size_t width = 1; width < chunks; width *= 2) {
    const std::size_t pairs = (chunks + 2 * width - 1) / (2 * width);
    parallel_for(pairs, [&](unsigned, std::size_t pair) {
      const std::size_t first = pair * 2 * width, middle = std::min(first + width, chunks), last = std::min(first + 2 * width, chunks);
      if (middle < last)
        std::inplace_merge(values.begin() + static_cast<std::ptrdiff_t>(bounds[first]),
                           values.begin() + static_cast<std::ptrdiff_t>(bounds[middle]),
                           values.begin() + static_cast<std::ptrdiff_t>(bounds[last]));
    });
  }
}

}  // namespace robustfit::regression::detail
