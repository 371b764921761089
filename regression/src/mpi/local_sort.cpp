#include "local_sort.hpp"

#include <algorithm>

#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/cpu_sort.hpp"

namespace robustfit::regression::detail {

void sort_local(std::span<const double> values, std::span<double> sorted, bool on_gpu) {
  if (on_gpu && !values.empty() && sort_on_gpu(values, sorted)) return;
  selection::sort_parallel(values, sorted);
}

namespace {

// How many of a's values are among the first d of the stable merge of a and b (a's first on
// ties): the merge path's split, by binary search.
std::size_t co_rank(std::size_t d, std::span<const double> a, std::span<const double> b) {
  std::size_t lo = d > b.size() ? d - b.size() : 0, hi = std::min(d, a.size());
  while (lo < hi) {
    const std::size_t i = lo + (hi - lo) / 2;
    if (a[i] <= b[d - i - 1]) lo = i + 1;  // a[i] comes before b[d - i - 1]: take more of a
    else hi = i;
  }
  return lo;
}

// out = the stable merge of a and b, each row chunk of out on its own thread.
void merge_parallel(std::span<const double> a, std::span<const double> b, std::span<double> out) {
  common::parallel_rows(out.size(), [&](std::size_t, std::size_t begin, std::size_t end) {
    const std::size_t i = co_rank(begin, a, b), i_end = co_rank(end, a, b);
    std::merge(a.begin() + static_cast<std::ptrdiff_t>(i), a.begin() + static_cast<std::ptrdiff_t>(i_end),
               b.begin() + static_cast<std::ptrdiff_t>(begin - i), b.begin() + static_cast<std::ptrdiff_t>(end - i_end),
               out.begin() + static_cast<std::ptrdiff_t>(begin));
  });
}

}  // namespace

std::vector<double> merge_sorted_runs(std::vector<double> received) {
  const std::size_t n = received.size();
  std::vector<double> a = std::move(received), b;
  std::vector<std::size_t> starts{0};  // of the maximal ascending runs
  for (std::size_t i = 1; i < n; ++i)
    if (a[i] < a[i - 1]) starts.push_back(i);
  starts.push_back(n);
  if (starts.size() > 2) b.resize(n);
  while (starts.size() > 2) {  // a round: runs 2k and 2k + 1 merged into b, a lone last run copied
    const std::size_t runs = starts.size() - 1;
    std::vector<std::size_t> next;
    for (std::size_t k = 0; k < runs; k += 2) {
      const std::size_t lo = starts[k], mid = starts[k + 1], hi = starts[std::min(k + 2, runs)];
      const std::span<const double> all(a);
      merge_parallel(all.subspan(lo, mid - lo), all.subspan(mid, hi - mid), std::span<double>(b).subspan(lo, hi - lo));
      next.push_back(lo);
    }
    next.push_back(n);
    starts.swap(next);
    a.swap(b);
  }
  return a;
}

}  // namespace robustfit::regression::detail
