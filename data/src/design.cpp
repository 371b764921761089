// From a Table to y and X: checks only the columns that are used, drops rows on request.
#include "robustfit/data/design.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "robustfit/common/parallel.hpp"

namespace robustfit::data {
namespace {

bool is_fatal(CellIssue issue, bool drop_missing) {
  return issue == CellIssue::not_numeric || (!drop_missing && issue != CellIssue::none);
}

std::string describe(const Table& table, const Column& column, const CellProblem& problem) {
  std::string message = table.source + ":" + std::to_string(problem.line) + ":" + column.name + ": ";
  switch (problem.issue) {
    case CellIssue::not_numeric:
      return message + "non-numeric value '" + problem.text + "'";
    case CellIssue::missing:
      message += problem.text.empty() ? "missing value" : "missing value '" + problem.text + "'";
      break;
    case CellIssue::not_finite:
      message += "non-finite value '" + problem.text + "'";
      break;
    case CellIssue::none:
      break;
  }
  return message + " (use --drop-missing to drop such rows)";
}

struct RowSelection {
  std::size_t count = 0;          // rows kept
  std::size_t dropped = 0;
  std::vector<std::size_t> kept;  // the 0-based data rows kept, listed only when some are dropped
  bool all() const { return dropped == 0; }
};

// Throws for the first fatal problem in file order (ties: the leftmost column); otherwise
// keeps the rows where every used column holds a finite number.
RowSelection select_rows(const Table& table, const std::vector<std::size_t>& used,
                         bool drop_missing, bool allow_empty = false) {
  const std::size_t rows = table.rows();
  std::optional<std::pair<std::size_t, std::size_t>> first;  // (column, problem index)
  std::vector<char> bad(rows, 0);
  bool any_bad = false;
  for (const std::size_t c : used) {
    const Column& column = table.columns[c];
    if (column.values.size() != rows) {
      throw std::invalid_argument("table column '" + column.name + "' has " +
                                  std::to_string(column.values.size()) + " values for " +
                                  std::to_string(rows) + " rows");
    }
    for (std::size_t k = 0; k < column.problems.size(); ++k) {
      const CellProblem& problem = column.problems[k];
      if (problem.row >= rows) continue;  // a hand-built table; nothing to drop
      bad[problem.row] = 1;
      any_bad = true;
      if (!is_fatal(problem.issue, drop_missing)) continue;
      if (!first) {
        first.emplace(c, k);
        break;  // later problems of this column come after this one
      }
      const CellProblem& best = table.columns[first->first].problems[first->second];
      if (problem.row < best.row || (problem.row == best.row && c < first->first)) {
        first.emplace(c, k);
      }
      break;
    }
  }
  if (first) {
    const Column& column = table.columns[first->first];
    throw DataError(describe(table, column, column.problems[first->second]));
  }
  RowSelection selection;
  selection.count = rows;
  if (any_bad) {  // (listing all 10^7 rows one by one took ~0.1 s)
    for (std::size_t i = 0; i < rows; ++i) {
      if (bad[i] == 0) selection.kept.push_back(i);
    }
    selection.count = selection.kept.size();
    selection.dropped = rows - selection.count;
  }
  if (selection.count == 0 && !allow_empty) {
    throw DataError(table.source + ": no rows left" +
                    (rows == 0 ? std::string(" (the table has no data rows)")
                               : " after dropping " + std::to_string(selection.dropped) +
                                     " rows with missing or non-finite values"));
  }
  return selection;
}

// The kept rows' 1-based data row numbers, filled in parallel.
std::vector<std::size_t> one_based(const RowSelection& selection) {
  std::vector<std::size_t> numbers(selection.count);
  common::parallel_rows(selection.count, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) numbers[i] = (selection.all() ? i : selection.kept[i]) + 1;
  });
  return numbers;
}

}  // namespace

Design make_design(const Table& table, const DesignOptions& options) {
  if (options.response.empty()) throw DataError(table.source + ": no response column given");
  const std::size_t response = table.column_index(options.response);

  std::vector<std::size_t> predictors;
  if (options.predictors.empty()) {
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (c != response) predictors.push_back(c);
    }
  } else {
    for (const std::string& name : options.predictors) {
      const std::size_t c = table.column_index(name);
      if (c == response) {
        throw DataError(table.source + ": column '" + name +
                        "' is the response and cannot also be a predictor");
      }
      for (const std::size_t earlier : predictors) {
        if (earlier == c) {
          throw DataError(table.source + ": predictor '" + name + "' is listed more than once");
        }
      }
      predictors.push_back(c);
    }
  }

  std::vector<std::size_t> used{response};
  used.insert(used.end(), predictors.begin(), predictors.end());
  const RowSelection selection = select_rows(table, used, options.drop_missing, options.allow_empty);

  const auto n = static_cast<Eigen::Index>(selection.count);
  const auto q = static_cast<Eigen::Index>(predictors.size());
  Design design;
  design.response = table.columns[response].name;
  design.y.resize(n);
  design.X.resize(n, q);
  for (Eigen::Index j = 0; j < q; ++j) design.predictors.push_back(table.columns[predictors[static_cast<std::size_t>(j)]].name);
  // Each used column copied by all threads over row chunks (one thread per column left five of
  // 16 idle at p = 10, each first-touching 80 MB at 10^7 rows); a gather when rows drop.
  for (Eigen::Index c = 0; c <= q; ++c) {
    const std::vector<double>& values = table.columns[c == 0 ? response : predictors[static_cast<std::size_t>(c - 1)]].values;
    double* const out = c == 0 ? design.y.data() : design.X.col(c - 1).data();
    common::parallel_rows(selection.count, [&](std::size_t, std::size_t begin, std::size_t end) {
      if (selection.all()) {
        std::copy(values.begin() + static_cast<std::ptrdiff_t>(begin), values.begin() + static_cast<std::ptrdiff_t>(end), out + begin);
      } else {
        for (std::size_t i = begin; i < end; ++i) out[i] = values[selection.kept[i]];
      }
    });
  }
  design.data_rows = one_based(selection);
  design.dropped_rows = selection.dropped;
  return design;
}

ColumnData numeric_column(const Table& table, std::string_view name, bool drop_missing, bool allow_empty) {
  const std::size_t c = table.column_index(name);
  const RowSelection selection = select_rows(table, {c}, drop_missing, allow_empty);
  ColumnData data;
  const std::vector<double>& values = table.columns[c].values;
  if (selection.all()) {
    data.values = values;
  } else {
    data.values.reserve(selection.count);
    for (const std::size_t row : selection.kept) data.values.push_back(values[row]);
  }
  data.data_rows = one_based(selection);
  data.dropped_rows = selection.dropped;
  return data;
}

}  // namespace robustfit::data
