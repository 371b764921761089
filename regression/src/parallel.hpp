#pragma once
// A minimal static-partition parallel loop over candidates, on every hardware thread.
// Results never depend on the number of threads: each index is handled independently.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <span>
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

// Fixed row chunks for passes over all n rows (validation, finish): at least kMinChunkRows rows
// each and at most kMaxChunks of them, so that per-chunk partial results, and the order they
// are combined in, depend on n only, never on the thread count. Boundaries are multiples of
// kChunkAlign rows: chunks never share a cache line or a word of a std::vector<bool>.
inline constexpr std::size_t kMinChunkRows = 32768;
inline constexpr std::size_t kMaxChunks = 256;
inline constexpr std::size_t kChunkAlign = 4096;

inline std::size_t row_chunk_count(std::size_t n) { return std::clamp<std::size_t>(n / kMinChunkRows, 1, kMaxChunks); }

inline std::size_t row_chunk_begin(std::size_t n, std::size_t chunk) {
  const std::size_t chunks = row_chunk_count(n);
  return chunk >= chunks ? n : chunk * n / chunks / kChunkAlign * kChunkAlign;
}

// Calls body(chunk, begin, end) for every row chunk of [0, n), chunks spread over the threads.
template <class Body>
void parallel_rows(std::size_t n, Body&& body) {
  parallel_for(row_chunk_count(n), [&](unsigned, std::size_t c) { body(c, row_chunk_begin(n, c), row_chunk_begin(n, c + 1)); });
}

// Writes `values` (no NaN) sorted ascending to `sorted` (of the same size) on every hardware
// thread: a radix sort (small inputs: std::sort). The values std::sort gives (-0 before +0).
void parallel_sort_copy(std::span<const double> values, std::span<double> sorted);

}  // namespace robustfit::regression::detail
