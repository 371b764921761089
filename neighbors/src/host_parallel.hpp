#pragma once
// Host threads for the large memory moves of the engines' output (faulting in, copying the
// neighbour lists): plain std::threads over contiguous parts, no pool (a handful per call).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

namespace robustfit::neighbors::detail {

// Host threads per output vector for faulting in and filling the lists (the rows and distances
// vectors are handled at the same time): half the hardware threads, 1 to 8 of them.
inline unsigned host_workers() { return std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u); }

// fn(begin, end) over `workers` contiguous parts of [0, count), at the same time; every index
// exactly once. Where no thread can be started, this thread does the parts left.
template <class F>
void in_parts(std::size_t count, unsigned workers, const F& fn) {
  if (workers <= 1 || count < 2) {
    fn(std::size_t{0}, count);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  const auto join = [&threads] {
    for (auto& t : threads) t.join();
  };
  try {
    for (unsigned w = 1; w < workers; ++w)
      threads.emplace_back([&fn, count, workers, w] { fn(count * w / workers, count * (w + 1) / workers); });
  } catch (...) {  // no thread to be had: this one does the rest
    join();
    const unsigned started = static_cast<unsigned>(threads.size()) + 1;
    fn(count * started / workers, count);
    fn(std::size_t{0}, count / workers);
    return;
  }
  fn(std::size_t{0}, count / workers);
  join();
}

// to[0, count) = from[0, count) (trivially copyable V), in `workers` parts when it is large (the
// first writes to fresh memory fault its pages in: that is the part worth spreading).
template <class V>
void copy_in_parts(const V* from, V* to, std::size_t count, unsigned workers) {
  constexpr std::size_t kPartBytes = std::size_t{8} << 20;
  const std::size_t parts = std::min<std::size_t>(workers, count * sizeof(V) / kPartBytes + 1);
  in_parts(count, static_cast<unsigned>(parts), [from, to](std::size_t begin, std::size_t end) {
    if (end > begin) std::memcpy(to + begin, from + begin, (end - begin) * sizeof(V));
  });
}

}  // namespace robustfit::neighbors::detail
