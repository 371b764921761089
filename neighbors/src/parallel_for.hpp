#pragma once
// The kNN module's one parallel loop: a plain std::thread loop over independent tasks on every
// hardware thread. Kept in this one place so the lead can swap it for the shared loop of
// common/include/robustfit/common/parallel.hpp once that is merged. Results never depend on
// the thread count or schedule: each task writes only its own outputs.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace robustfit::neighbors::detail {

inline unsigned worker_count(std::size_t tasks) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(hw, std::max<std::size_t>(tasks, 1)));
}

// Calls body(worker, task) for task in [0, count), tasks handed out one at a time (dynamic: the
// cores of a shared machine are not equally fast); worker < worker_count(count), for per-worker
// scratch. Rethrows the first exception.
template <class Body>
void parallel_for(std::size_t count, Body&& body) {
  const unsigned workers = worker_count(count);
  if (workers <= 1) {
    for (std::size_t i = 0; i < count; ++i) body(0u, i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(workers);
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        for (std::size_t i; (i = next.fetch_add(1)) < count;) body(w, i);
      } catch (...) {
        errors[w] = std::current_exception();
        next = count;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace robustfit::neighbors::detail
