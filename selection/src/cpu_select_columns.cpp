// kth_smallest_many_columns: the sampled-bracket selection of a few ranks in many columns at
// once, every (column, row chunk) pair a task of one parallel pass.
#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "robustfit/common/parallel.hpp"
#include "robustfit/common/target_clones.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "sample_bracket.hpp"
#include "select_branch_free.hpp"

namespace robustfit::selection {
namespace {

// One row chunk of a column: its values below and above a bracket, and those inside it in row order.
template <class T>
struct ChunkPart {
  std::size_t below = 0, above = 0;
  std::vector<T> inside;
};

// A column's values, or its absolute deviations from a centre (computed as |v - c|, the numbers
// a stored deviation vector would hold).
template <class T>
struct ColumnValues {
  std::span<const T> values;
  bool deviations = false;
  T centre = 0;

  T operator()(std::size_t i) const { return deviations ? std::abs(values[i] - centre) : values[i]; }
};

// One row chunk: the counts below and above [low, high] (one vectorised pass), then, with the
// chunk in cache, the copy of the values inside in row order: every value is stored and the
// position advances for those inside (branch-free; the room is one more than the most inside).
// A NaN is in none of the three counts.
template <bool Deviations, class T>
[[gnu::always_inline]] inline void count_and_copy(const T* v, std::size_t n, T centre, T low, T high, ChunkPart<T>& part) {
  const auto value = [&](std::size_t i) { return Deviations ? std::abs(v[i] - centre) : v[i]; };
  std::size_t below = 0, above = 0;
  for (std::size_t i = 0; i < n; ++i) {
    below += value(i) < low;
    above += value(i) > high;
  }
  part.below = below;
  part.above = above;
  part.inside.resize(n - below - above + 1);
  T* out = part.inside.data();
  std::size_t inside = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T x = value(i);
    out[inside] = x;
    inside += (x >= low) & (x <= high);
  }
  part.inside.resize(inside);
}

#define ROBUSTFIT_COLUMN_PASS(T)                                                                             \
  ROBUSTFIT_TARGET_CLONES void count_and_copy_chunk(const ColumnValues<T>& column, std::size_t begin,         \
                                                    std::size_t end, T low, T high, ChunkPart<T>& part) {     \
    const T* v = column.values.data() + begin;                                                               \
    if (column.deviations) count_and_copy<true>(v, end - begin, column.centre, low, high, part);             \
    else count_and_copy<false>(v, end - begin, column.centre, low, high, part);                              \
  }
ROBUSTFIT_COLUMN_PASS(float)
ROBUSTFIT_COLUMN_PASS(double)
#undef ROBUSTFIT_COLUMN_PASS

// kth_smallest_many of the column's values, stored: the reference, and its errors.
template <class T>
std::vector<T> select_stored(const ColumnValues<T>& column, std::span<const std::size_t> ks) {
  std::vector<T> values(column.values.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = column(i);
  return kth_smallest_many<T>(values, ks);
}

// The bracket [low, high] of all ranks from a regular sample of the column's values; nullopt
// for a NaN in the sample.
template <class T>
std::optional<std::pair<T, T>> column_bracket(const ColumnValues<T>& column, std::span<const std::size_t> ks) {
  const std::size_t n = column.values.size(), s = detail::sample_size(n);
  std::vector<T> sample(s);
  if (!detail::take_sample(column.values, s, sample.data())) return std::nullopt;
  if (column.deviations)
    for (T& x : sample) x = std::abs(x - column.centre);
  const auto [lowest, highest] = std::minmax_element(ks.begin(), ks.end());
  return detail::sample_bracket(sample.data(), s, n, *lowest, *highest);
}

// The column's order statistics from its chunks' parts; kth_smallest_many of all its values
// when the bracket missed a rank or a value is NaN.
template <class T>
std::vector<T> select_inside(const ColumnValues<T>& column, std::span<const std::size_t> ks, std::span<const ChunkPart<T>> parts) {
  std::size_t below = 0, above = 0, count = 0;
  for (const ChunkPart<T>& part : parts) below += part.below, above += part.above, count += part.inside.size();
  const auto [lowest, highest] = std::minmax_element(ks.begin(), ks.end());
  if (below + above + count != column.values.size() || *lowest < below || *highest >= below + count)
    return select_stored(column, ks);
  // Each rank by the branch-free quickselect on a copy of those inside (no NaN among them).
  std::vector<T> work(2 * count);
  std::vector<T> result;
  for (const std::size_t k : ks) {
    T* out = work.data();
    for (const ChunkPart<T>& part : parts) out = std::copy(part.inside.begin(), part.inside.end(), out);
    result.push_back(detail::select_branch_free(work.data(), work.data() + count, count, k - below));
  }
  return result;
}

// The columns as ColumnValues, after the argument checks.
template <class T>
std::vector<ColumnValues<T>> column_values(std::span<const std::span<const T>> columns, std::span<const T> centres) {
  const std::size_t m = columns.size(), n = m == 0 ? 0 : columns[0].size();
  if (!centres.empty() && centres.size() != m) throw std::invalid_argument("one centre per column is needed");
  if (std::any_of(columns.begin(), columns.end(), [&](std::span<const T> c) { return c.size() != n; }))
    throw std::invalid_argument("the columns differ in length");
  std::vector<ColumnValues<T>> column(m);
  for (std::size_t j = 0; j < m; ++j) column[j] = {columns[j], !centres.empty(), centres.empty() ? T(0) : centres[j]};
  return column;
}

// select(j) for every column j, in parallel; each column's error is caught and the first
// column's rethrown: the same error on any number of threads.
template <class T, class Select>
std::vector<std::vector<T>> each_column(std::size_t m, Select&& select) {
  std::vector<std::vector<T>> result(m);
  std::vector<std::exception_ptr> errors(m);
  common::parallel_for(m, [&](unsigned, std::size_t j) {
    try {
      result[j] = select(j);
    } catch (...) {
      errors[j] = std::current_exception();
    }
  });
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return result;
}

// Every (column, row chunk) pass in one parallel loop: chunk c of column j is task j chunks + c
// (nothing for a column without a bracket).
template <class T>
std::vector<ChunkPart<T>> chunk_parts(const std::vector<ColumnValues<T>>& column,
                                      const std::vector<std::optional<std::pair<T, T>>>& brackets, std::size_t n) {
  const std::size_t chunks = common::row_chunk_count(n);
  std::vector<ChunkPart<T>> parts(column.size() * chunks);
  common::parallel_for(parts.size(), [&](unsigned, std::size_t t) {
    const std::size_t j = t / chunks, c = t % chunks;
    if (brackets[j])
      count_and_copy_chunk(column[j], common::row_chunk_begin(n, c), common::row_chunk_begin(n, c + 1), brackets[j]->first,
                           brackets[j]->second, parts[t]);
  });
  return parts;
}

}  // namespace

template <class T>
std::vector<std::vector<T>> kth_smallest_many_columns(std::span<const std::span<const T>> columns,
                                                     std::span<const std::size_t> ks, std::span<const T> centres) {
  const std::vector<ColumnValues<T>> column = column_values(columns, centres);
  const std::size_t m = column.size(), n = m == 0 ? 0 : columns[0].size();
  const bool small = n < detail::kMinBracketed || ks.empty() || std::any_of(ks.begin(), ks.end(), [&](std::size_t k) { return k >= n; });
  if (small) return each_column<T>(m, [&](std::size_t j) { return select_stored(column[j], ks); });
  std::vector<std::optional<std::pair<T, T>>> brackets(m);
  common::parallel_for(m, [&](unsigned, std::size_t j) { brackets[j] = column_bracket(column[j], ks); });
  const std::vector<ChunkPart<T>> parts = chunk_parts(column, brackets, n);
  const std::size_t chunks = common::row_chunk_count(n);
  return each_column<T>(m, [&](std::size_t j) {
    return brackets[j] ? select_inside(column[j], ks, std::span<const ChunkPart<T>>(parts).subspan(j * chunks, chunks))
                       : select_stored(column[j], ks);
  });
}

template std::vector<std::vector<float>> kth_smallest_many_columns<float>(std::span<const std::span<const float>>,
                                                                          std::span<const std::size_t>, std::span<const float>);
template std::vector<std::vector<double>> kth_smallest_many_columns<double>(std::span<const std::span<const double>>,
                                                                            std::span<const std::size_t>, std::span<const double>);

}  // namespace robustfit::selection
