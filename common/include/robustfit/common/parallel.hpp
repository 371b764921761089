#pragma once
// The project's thread loop: a static partition of indices over every hardware thread, and
// fixed row chunks for passes over all n rows. Results never depend on the number of threads:
// each index is handled independently, and per-chunk partial results are combined in chunk
// order, with chunks fixed by n alone.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace robustfit::common {

// The CPUs this process may run on: its affinity mask where the system has one (mpirun binds
// each rank to one core when it starts two or fewer), else every hardware thread. Read once.
inline unsigned affinity_cpus() {
  static const unsigned cpus = [] {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
#endif
    return std::max(1u, std::thread::hardware_concurrency());
  }();
  return cpus;
}

namespace detail {
inline std::atomic<unsigned>& cpu_sharers() {
  static std::atomic<unsigned> processes{1};
  return processes;
}
}  // namespace detail

// The processes of this host whose CPUs overlap this one's (MPI ranks started with
// --bind-to none, or bound to one socket): each then keeps to its share of affinity_cpus(),
// instead of every rank running a thread per CPU (4 ranks x 64 threads on 64 cores made the
// host passes of a fit 3-5x slower).
inline void share_cpus_with(unsigned processes) { detail::cpu_sharers().store(std::max(1u, processes)); }

// The threads a parallel loop may use: this process's share of its CPUs (at least 1).
inline unsigned usable_cpus() { return std::max(1u, affinity_cpus() / detail::cpu_sharers().load(std::memory_order_relaxed)); }

// The number of workers parallel_for uses for `tasks` indices (at least 1).
inline unsigned worker_count(std::size_t tasks) {
  return static_cast<unsigned>(std::min<std::size_t>(usable_cpus(), std::max<std::size_t>(tasks, 1)));
}

namespace detail {

// usable_cpus() - 1 threads kept for the process, so that a parallel loop does not
// start and join threads each time (an LTS fit at 10^5 rows made ~500 parallel calls: 1000
// threads started on 2 cores). run() hands indices 1 .. workers-1 to them and runs index 0 (and
// any index no thread has taken yet) on the caller. One loop at a time: a call made while the
// pool is busy (a parallel loop inside a parallel loop, or from another caller thread) gets
// false and starts threads of its own, as before. Never destroyed: its threads wait for work
// until the process ends.
class WorkerPool {
 public:
  static WorkerPool& instance() {
    static WorkerPool* const pool = new WorkerPool(affinity_cpus() - 1);  // loops use usable_cpus() of them
    return *pool;
  }

  // Runs task(w) once for every w in [0, workers); false (nothing run) when the pool is busy.
  bool run(unsigned workers, const std::function<void(unsigned)>& task) {
    std::unique_lock lock(mutex_);
    if (busy_) return false;
    busy_ = true;
    task_ = &task;
    workers_ = workers;
    next_ = 1;
    remaining_ = workers - 1;
    ++generation_;
    lock.unlock();
    // Wake only the threads the loop can use: waking all of them for a 3-chunk pass cost more
    // than the pass on a 16-core machine. A thread not woken sees the new generation when it
    // next waits, so none is lost.
    for (unsigned w = 1; w < workers; ++w) work_.notify_one();
    task(0);
    lock.lock();
    take_indices(lock);  // those no pool thread has started yet
    done_.wait(lock, [&] { return remaining_ == 0; });
    busy_ = false;
    task_ = nullptr;
    return true;
  }

 private:
  explicit WorkerPool(unsigned threads) {
    for (unsigned t = 0; t < threads; ++t) std::thread([this] { serve(); }).detach();
  }

  // Runs the current loop's untaken indices; `lock` held on entry and on return.
  void take_indices(std::unique_lock<std::mutex>& lock) {
    while (next_ < workers_) {
      const unsigned w = next_++;
      const std::function<void(unsigned)>& task = *task_;
      lock.unlock();
      task(w);
      lock.lock();
      if (--remaining_ == 0) done_.notify_all();
    }
  }

  void serve() {
    std::unique_lock lock(mutex_);
    unsigned long long seen = generation_;
    for (;;) {
      work_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      take_indices(lock);
    }
  }

  std::mutex mutex_;
  std::condition_variable work_, done_;
  bool busy_ = false;
  const std::function<void(unsigned)>* task_ = nullptr;
  unsigned workers_ = 0, next_ = 0, remaining_ = 0;
  unsigned long long generation_ = 0;
};

// Runs loop(worker, workers) on worker_count(count) workers (inline when that is one) and
// rethrows the first worker's exception; stop() runs in a worker that threw, to end the others
// early where the loop allows it.
template <class Loop, class Stop>
void run_workers(std::size_t count, Loop&& loop, Stop&& stop) {
  const unsigned workers = worker_count(count);
  if (workers <= 1) {
    loop(0u, 1u);
    return;
  }
  std::vector<std::exception_ptr> errors(workers);
  const std::function<void(unsigned)> task = [&](unsigned w) {
    try {
      loop(w, workers);
    } catch (...) {
      errors[w] = std::current_exception();
      stop();
    }
  };
  if (!WorkerPool::instance().run(workers, task)) {
    std::vector<std::thread> threads;
    threads.reserve(workers);
    for (unsigned w = 0; w < workers; ++w) threads.emplace_back(task, w);
    for (auto& t : threads) t.join();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace detail

// Calls body(worker, index) for index in [0, count); `worker` < worker_count(count), so
// callers can keep one scratch buffer per worker. Rethrows the first worker's exception.
template <class Body>
void parallel_for(std::size_t count, Body&& body) {
  detail::run_workers(
      count,
      [&](unsigned w, unsigned workers) {
        for (std::size_t i = w; i < count; i += workers) body(w, i);
      },
      [] {});
}

// The same contract with indices handed out one at a time: for tasks of uneven cost (kNN
// query groups) or cores of uneven speed. Each index still writes only its own outputs, so
// results do not depend on the schedule.
template <class Body>
void parallel_for_dynamic(std::size_t count, Body&& body) {
  std::atomic<std::size_t> next{0};
  detail::run_workers(
      count,
      [&](unsigned w, unsigned) {
        for (std::size_t i; (i = next.fetch_add(1)) < count;) body(w, i);
      },
      [&] { next = count; });  // the others stop at their next index
}

// Fixed row chunks for passes over all n rows: at least kMinChunkRows rows each and at most
// kMaxChunks of them, so that per-chunk partial results, and the order they are combined in,
// depend on n only, never on the thread count. Boundaries are multiples of kChunkAlign rows:
// chunks never share a cache line or a word of a std::vector<bool>.
inline constexpr std::size_t kMinChunkRows = 32768;
inline constexpr std::size_t kMaxChunks = 256;
inline constexpr std::size_t kChunkAlign = 4096;

inline std::size_t row_chunk_count(std::size_t n) { return std::clamp<std::size_t>(n / kMinChunkRows, 1, kMaxChunks); }

inline std::size_t row_chunk_begin(std::size_t n, std::size_t chunk) {
  const std::size_t chunks = row_chunk_count(n);
  return chunk >= chunks ? n : chunk * n / chunks / kChunkAlign * kChunkAlign;
}

// The workers a loop over the row chunks of n rows uses.
inline unsigned row_workers(std::size_t n) { return worker_count(row_chunk_count(n)); }

// Calls body(worker, chunk, begin, end) for every row chunk of [0, n), chunks spread over the
// threads; worker < row_workers(n), so that a pass can keep one scratch buffer per worker.
template <class Body>
void parallel_rows_by_worker(std::size_t n, Body&& body) {
  parallel_for(row_chunk_count(n), [&](unsigned w, std::size_t c) { body(w, c, row_chunk_begin(n, c), row_chunk_begin(n, c + 1)); });
}

// Calls body(chunk, begin, end) for every row chunk of [0, n), chunks spread over the threads.
template <class Body>
void parallel_rows(std::size_t n, Body&& body) {
  parallel_rows_by_worker(n, [&](unsigned, std::size_t c, std::size_t begin, std::size_t end) { body(c, begin, end); });
}

// std::allocator, except that a vector's new elements are left uninitialized: a large vector of
// row numbers is then first written (and its pages first touched) by the parallel pass that
// fills it, not zeroed on one thread beforehand (tens of ms for 10^7 rows).
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// Row numbers that a parallel pass writes right after sizing (gather_rows<RowList>).
using RowList = std::vector<std::size_t, UninitializedAllocator<std::size_t>>;

// The rows chunk c keeps, counts[c] of them (one count per row chunk of n), written in row
// order by fill(c, begin, end, out) into `rows`, which is resized to their number (within its
// capacity: no new memory), the chunks' rows one after the other.
template <class Rows, class Fill>
void gather_rows_into(Rows& rows, std::size_t n, std::span<const std::size_t> counts, Fill&& fill) {
  std::vector<std::size_t> offsets(counts.size() + 1, 0);
  std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
  rows.clear();  // a larger size then copies nothing over
  rows.resize(offsets.back());
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) { fill(c, begin, end, rows.data() + offsets[c]); });
}

// The same in a new `Rows` vector.
template <class Rows = std::vector<std::size_t>, class Fill>
Rows gather_rows(std::size_t n, std::span<const std::size_t> counts, Fill&& fill) {
  Rows rows;
  gather_rows_into(rows, n, counts, std::forward<Fill>(fill));
  return rows;
}

// The rows i in [0, n) with keep(i), sorted.
template <class Keep>
std::vector<std::size_t> rows_where(std::size_t n, Keep&& keep) {
  std::vector<std::size_t> counts(row_chunk_count(n));
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::size_t count = 0;
    for (std::size_t i = begin; i < end; ++i) count += keep(i) ? 1 : 0;
    counts[c] = count;
  });
  return gather_rows(n, counts, [&](std::size_t, std::size_t begin, std::size_t end, std::size_t* out) {
    for (std::size_t i = begin; i < end; ++i)
      if (keep(i)) *out++ = i;
  });
}

}  // namespace robustfit::common
