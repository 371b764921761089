// The host side of the kNN engines' output, on the CPU alone: m x k neighbour lists (int64 rows
// + double distances, 16 bytes an entry; 1 GB at 2^16 x 1000) written tile by tile into the
// engine boundary's vectors, as the CUDA engine's ListWriter does from its pinned staging, then
// freed. Two ways of sizing the vectors (ms per phase, median over --reps):
//   before: std::vector, 2 MiB interior advised MADV_HUGEPAGE, pages faulted in by `workers`
//           threads, then assign() zero-fills it in one thread (the round-7 engine);
//   after:  ListVector (list_allocator.hpp): a huge-page mapping, resize() writes nothing, pages
//           faulted in by `workers` threads.
// Then the same tile copies (`workers` threads per vector, rows and distances at once) and the
// free; `search_copy`: knn_search's copy of the lists into its Eigen result (one thread before;
// after: huge-page advice on the Eigen storage, copy_in_parts). In the engine the sizing overlaps
// the GPU's first tile and each tile's copy the next tile's device work; here every phase is timed
// alone.
//
//   bench_knn_output --queries 65536 --k 1000 [--tile 8192] [--workers 8] [--reps 5]
#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <vector>

#include "host_parallel.hpp"
#include "list_allocator.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace detail = robustfit::neighbors::detail;

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The round-7 engine's sizing (cuda_engine.cpp at f8688f5, assign_output), kept as the baseline.
template <class V>
void size_before(std::vector<V>& out, std::size_t count, V value, unsigned workers) {
  out.reserve(count);
  const std::size_t bytes = count * sizeof(V);
  if (bytes >= detail::kHugeListBytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const auto begin = reinterpret_cast<std::uintptr_t>(out.data());
    const std::uintptr_t first = (begin + detail::kHugePageBytes - 1) / detail::kHugePageBytes * detail::kHugePageBytes;
    const std::uintptr_t last = (begin + bytes) / detail::kHugePageBytes * detail::kHugePageBytes;
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
    detail::touch_pages(out.data(), bytes, workers);
  }
  out.assign(count, value);
}

template <class V>
void size_after(detail::ListVector<V>& out, std::size_t count, unsigned workers) {
  out.resize(count);
  if (count * sizeof(V) >= detail::kHugeListBytes) detail::touch_pages(out.data(), count * sizeof(V), workers);
}

struct Phases {
  double size = 0, copy = 0, free = 0, search_copy = 0;
};

// The tiles' staging copies into the vectors: rows and distances at once, `workers` threads each.
template <class R, class D>
void copy_tiles(R& rows, D& distances, const std::vector<std::int64_t>& staged_rows,
                const std::vector<double>& staged_distances, std::size_t queries, std::size_t k,
                std::size_t tile, unsigned workers) {
  for (std::size_t q0 = 0; q0 < queries; q0 += tile) {
    const std::size_t entries = (std::min(queries, q0 + tile) - q0) * k;
    auto a = std::async(std::launch::async, [&] {
      detail::copy_in_parts(staged_rows.data(), rows.data() + q0 * k, entries, workers);
    });
    detail::copy_in_parts(staged_distances.data(), distances.data() + q0 * k, entries, workers);
    a.get();
  }
}

template <bool After>
Phases run(std::size_t queries, std::size_t k, std::size_t tile, unsigned workers,
           const std::vector<std::int64_t>& staged_rows, const std::vector<double>& staged_distances) {
  Phases p;
  const std::size_t count = queries * k;
  using Rows = std::conditional_t<After, detail::ListVector<std::int64_t>, std::vector<std::int64_t>>;
  using Distances = std::conditional_t<After, detail::ListVector<double>, std::vector<double>>;
  auto rows = std::make_unique<Rows>();
  auto distances = std::make_unique<Distances>();
  auto start = Clock::now();
  auto sized = std::async(std::launch::async, [&] {
    if constexpr (After) size_after(*rows, count, workers);
    else size_before<std::int64_t>(*rows, count, -1, workers);
  });
  if constexpr (After) size_after(*distances, count, workers);
  else size_before<double>(*distances, count, 0.0, workers);
  sized.get();
  p.size = ms_since(start);
  start = Clock::now();
  copy_tiles(*rows, *distances, staged_rows, staged_distances, queries, k, tile, workers);
  p.copy = ms_since(start);
  // knn_search's Eigen result.
  Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> result(
      static_cast<Eigen::Index>(queries), static_cast<Eigen::Index>(k));
  start = Clock::now();
  if constexpr (After) {
    detail::advise_huge_pages(result.data(), count * sizeof(std::int64_t));
    detail::copy_in_parts(rows->data(), result.data(), count, workers);
  } else {
    result = Eigen::Map<const decltype(result)>(rows->data(), result.rows(), result.cols());
  }
  p.search_copy = ms_since(start);
  if (result(static_cast<Eigen::Index>(queries) - 1, 0) == -2) std::puts("");  // keep the copy
  start = Clock::now();
  rows.reset();
  distances.reset();
  p.free = ms_since(start);
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t queries = 65536, k = 1000, tile = 8192;
  unsigned workers = detail::host_workers();
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    const unsigned long long value = std::stoull(argv[i + 1]);
    if (arg == "--queries") queries = value;
    else if (arg == "--k") k = value;
    else if (arg == "--tile") tile = value;
    else if (arg == "--workers") workers = static_cast<unsigned>(value);
    else if (arg == "--reps") reps = static_cast<int>(value);
    else {
      std::fprintf(stderr, "usage: bench_knn_output --queries M --k K [--tile T] [--workers W] [--reps R]\n");
      return 2;
    }
  }
  const std::size_t staged = std::min(queries, tile) * k;
  std::vector<std::int64_t> staged_rows(staged);
  std::vector<double> staged_distances(staged);
  for (std::size_t i = 0; i < staged; ++i) {
    staged_rows[i] = static_cast<std::int64_t>(i % 262144);
    staged_distances[i] = 0.001 * static_cast<double>(i % 1000);
  }
  std::printf("way,queries,k,tile,workers,size_ms,copy_ms,free_ms,total_ms,search_copy_ms\n");
  // The two ways alternate rep by rep, so a change of load on the machine hits both alike.
  std::vector<double> size[2], copy[2], free[2], total[2], search[2];
  for (int r = 0; r < reps; ++r)
    for (int way = 0; way < 2; ++way) {
      const Phases p = way == 0 ? run<false>(queries, k, tile, workers, staged_rows, staged_distances)
                                : run<true>(queries, k, tile, workers, staged_rows, staged_distances);
      size[way].push_back(p.size);
      copy[way].push_back(p.copy);
      free[way].push_back(p.free);
      total[way].push_back(p.size + p.copy + p.free);
      search[way].push_back(p.search_copy);
    }
  for (int way = 0; way < 2; ++way)
    std::printf("%s,%zu,%zu,%zu,%u,%.1f,%.1f,%.1f,%.1f,%.1f\n", way == 0 ? "before" : "after", queries, k, tile,
                workers, median(size[way]), median(copy[way]), median(free[way]), median(total[way]),
                median(search[way]));
  return 0;
}
