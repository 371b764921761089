// robust-fit knn: exact k-nearest-neighbour regression and classification from CSV files, or
// the leave-one-out choice of k when no query file is given.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli_error.hpp"
#include "commands.hpp"
#include "options_util.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/neighbors/knn.hpp"

namespace po = boost::program_options;

namespace robustfit::app {

namespace {

constexpr const char* kKnnHelp = R"(Usage: robust-fit knn --train TRAIN.csv [--query QUERY.csv] --response NAME --k K[,K...] [options]

Exact k-nearest-neighbour prediction. With --query: predicts the response of every query row
from its k nearest training rows. Without --query: leave-one-out over the training set for
every k of the list (each point's own row left out; duplicates of it are not), printing the
LOO error per k (RMSE for regression, misclassification rate for classification) and the best
k (smallest error; ties go to the smaller k).

Distances (features are the predictor columns; the query file must have the training
predictors, by name; other query columns are ignored):
  euclidean  sqrt(sum_j (q_j - x_j)^2)      manhattan  sum_j |q_j - x_j|
  computed directly (a GEMM only filters candidates, with a rigorous rounding bound), so every
  backend gives the same distances and neighbour sets in double.
Ties: the k nearest are the k smallest by (distance, training row); a tie at the k-th distance
  goes to the row that comes first in TRAIN.csv, always, on every backend.
Weights: uniform (every neighbour counts 1) or distance (1/distance; when some neighbours are at
  distance 0, those alone share the weight, as scikit-learn).
Regression predicts the weighted mean response; classification the class with the largest
  (weighted) vote, a tied vote going to the class of the nearest neighbour among the tied
  classes. Labels may be text (classification only).
--standardize z-scores every feature with the training mean and population sd (queries with
  the same); a constant training column is centred, not scaled. Off by default, as scikit-learn.
Output: table, json or csv. With --neighbors the neighbours (1-based data-row numbers of
  TRAIN.csv, increasing distance, ties by row) and their distances are printed too.

Options)";

struct KnnArguments {
  std::string train, query, response, predictors, k, mode, weights, metric, backend, precision, output;
  bool standardize = false, neighbors = false, drop_missing = false;
};

po::options_description knn_options(KnnArguments& a) {
  po::options_description options(kKnnHelp);
  options.add_options()
    ("help", "show this help")
    ("train", po::value(&a.train), "training CSV file (required)")
    ("query", po::value(&a.query), "query CSV file (without it: leave-one-out choice of k)")
    ("response,y", po::value(&a.response), "name of the response (label) column (required)")
    ("predictors,x", po::value(&a.predictors), "comma-separated feature columns (default: every other training column)")
    ("k,k", po::value(&a.k), "number of neighbours; a list (1,5,10) without --query (required)")
    ("mode", po::value(&a.mode)->default_value("regression"), "regression | classification")
    ("weights", po::value(&a.weights)->default_value("uniform"), "uniform | distance")
    ("metric", po::value(&a.metric)->default_value("euclidean"), "euclidean | manhattan")
    ("standardize", po::bool_switch(&a.standardize), "z-score features with the training mean and sd (default off)")
    ("neighbors", po::bool_switch(&a.neighbors), "also print each query's neighbours and distances")
    ("backend", po::value(&a.backend)->default_value("auto"), "auto | cpu | cuda (auto: CUDA when a GPU is usable)")
    ("precision", po::value(&a.precision)->default_value("double"), "double | float (float: CUDA only)")
    ("output,o", po::value(&a.output)->default_value("table"), "table | json | csv")
    ("drop-missing", po::bool_switch(&a.drop_missing), "drop rows with missing, NaN or Inf values in used columns (default: error)");
  return options;
}


std::vector<std::size_t> parse_ks(const std::string& text) {
  const std::vector<std::uint64_t> ks = parse_integer_list("k", text, 1);
  return {ks.begin(), ks.end()};
}

std::string shortest(double v) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

std::string where(const data::Table& table, std::size_t row, const std::string& column) {
  return table.source + ":" + std::to_string(table.lines[row]) + ": column '" + column + "'";
}

// The rows of `table` usable for `columns` (missing/non-finite cells: error, or dropped with
// --drop-missing); text in a feature column is always an error.
std::vector<std::size_t> usable_rows(const data::Table& table, const std::vector<std::size_t>& columns,
                                     std::optional<std::size_t> label_column, bool drop_missing, std::size_t& dropped) {
  std::set<std::size_t> bad;
  for (const std::size_t c : columns) {
    const auto& column = table.columns[c];
    for (const auto& p : column.problems) {
      if (p.issue == data::CellIssue::not_numeric && (!label_column || *label_column != c))
        throw data::DataError(where(table, p.row, column.name) + ": '" + p.text + "' is not a number");
      if (p.issue == data::CellIssue::not_numeric) continue;  // a text label
      if (!drop_missing)
        throw data::DataError(where(table, p.row, column.name) + ": " +
                              (p.issue == data::CellIssue::missing ? "missing value" : "'" + p.text + "' is not finite") +
                              " (use --drop-missing to drop such rows)");
      bad.insert(p.row);
    }
  }
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < table.rows(); ++r)
    if (!bad.count(r)) rows.push_back(r);
  dropped = bad.size();
  if (rows.empty()) throw data::DataError(table.source + ": no rows left after dropping rows with missing values");
  return rows;
}

Eigen::MatrixXd features(const data::Table& table, const std::vector<std::size_t>& columns, const std::vector<std::size_t>& rows) {
  Eigen::MatrixXd X(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(columns.size()));
  for (std::size_t j = 0; j < columns.size(); ++j)
    for (std::size_t i = 0; i < rows.size(); ++i)
      X(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = table.columns[columns[j]].values[rows[i]];
  return X;
}

struct Response {
  Eigen::VectorXd values;            // regression values or class codes
  std::vector<std::string> classes;  // classification: label text of each code
};

Response read_response(const data::Table& table, std::size_t c, const std::vector<std::size_t>& rows, neighbors::Mode mode) {
  const auto& column = table.columns[c];
  std::map<std::size_t, std::string> text;  // rows whose label is text
  for (const auto& p : column.problems)
    if (p.issue == data::CellIssue::not_numeric) text[p.row] = p.text;
  Response r;
  r.values.resize(static_cast<Eigen::Index>(rows.size()));
  if (mode == neighbors::Mode::regression) {
    if (!text.empty())
      throw data::DataError(where(table, text.begin()->first, column.name) + ": text label '" + text.begin()->second +
                            "' with --mode regression (use --mode classification for class labels)");
    for (std::size_t i = 0; i < rows.size(); ++i) r.values[static_cast<Eigen::Index>(i)] = column.values[rows[i]];
    return r;
  }
  std::vector<std::string> labels(rows.size());
  bool all_numeric = true;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto t = text.find(rows[i]);
    all_numeric = all_numeric && t == text.end();
    labels[i] = t != text.end() ? t->second : shortest(column.values[rows[i]]);
  }
  // Classes in sorted order (numerically when every label is a number), as scikit-learn.
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return all_numeric ? column.values[rows[a]] < column.values[rows[b]] : labels[a] < labels[b];
  });
  std::map<std::string, std::size_t> code;
  for (const std::size_t i : order)
    if (code.emplace(labels[i], r.classes.size()).second) r.classes.push_back(labels[i]);
  for (std::size_t i = 0; i < rows.size(); ++i) r.values[static_cast<Eigen::Index>(i)] = static_cast<double>(code[labels[i]]);
  return r;
}

}  // namespace

int run_knn(const std::vector<std::string>& args, Stage stage) {
  KnnArguments a;
  const po::options_description options = knn_options(a);
  const po::variables_map vm = parse_command_line(args, options, "knn");
  if (vm.count("help")) {
    if (stage == Stage::run) std::cout << options << "\n";
    return kExitOk;
  }
  if (vm.count("data")) throw UsageError("knn: unexpected argument '" + vm["data"].as<std::string>() + "' (use --train FILE)");
  if (a.train.empty()) throw UsageError("knn: --train is required (the training CSV file)");
  if (a.response.empty()) throw UsageError("knn: --response is required (the name of the response column)");
  if (a.k.empty()) throw UsageError("knn: --k is required (the number of neighbours, or a list without --query)");
  const auto ks = parse_ks(a.k);
  const bool loo = a.query.empty();
  if (!loo && ks.size() > 1) throw UsageError("--k: give one k with --query (a list is for the leave-one-out choice without --query)");
  if (loo && a.neighbors) throw UsageError("--neighbors needs --query");
  neighbors::KnnOptions o;
  o.mode = parse_or_usage<neighbors::Mode>("mode", a.mode, neighbors::parse_mode);
  o.weights = parse_or_usage<neighbors::Weights>("weights", a.weights, neighbors::parse_weights);
  o.metric = parse_or_usage<neighbors::Metric>("metric", a.metric, neighbors::parse_metric);
  o.precision = parse_or_usage<neighbors::Precision>("precision", a.precision, neighbors::parse_precision);
  o.backend = parse_or_usage<selection::Backend>("backend", a.backend, selection::parse_backend);
  if (o.precision == neighbors::Precision::single_precision && o.backend == selection::Backend::cpu)
    throw UsageError("--precision float applies to the CUDA backend only; the CPU backend computes in double");
  o.standardize = a.standardize;
  o.k = ks.front();
  if (a.output != "table" && a.output != "json" && a.output != "csv")
    throw UsageError("--output: unknown format '" + a.output + "' (expected table, json or csv)");

  if (stage == Stage::parse) return kExitOk;

  const data::Table train = data::read_csv(a.train);
  const std::size_t response_column = train.column_index(a.response);
  std::vector<std::size_t> predictor_columns;
  std::vector<std::string> predictor_names;
  if (!a.predictors.empty()) {
    predictor_names = split_list(a.predictors, "predictors");
    for (const auto& name : predictor_names) {
      if (name == a.response) throw UsageError("--predictors: '" + name + "' is the response");
      predictor_columns.push_back(train.column_index(name));
    }
  } else {
    for (std::size_t c = 0; c < train.columns.size(); ++c)
      if (c != response_column) {
        predictor_columns.push_back(c);
        predictor_names.push_back(train.columns[c].name);
      }
  }
  if (predictor_columns.empty()) throw data::DataError(a.train + ": no feature columns besides the response");
  std::vector<std::size_t> used = predictor_columns;
  used.push_back(response_column);
  std::size_t dropped = 0;
  const auto train_rows = usable_rows(train, used, response_column, a.drop_missing, dropped);
  if (dropped) std::cerr << "robust-fit: note: dropped " << dropped << " training rows with missing or non-finite values (--drop-missing)\n";
  const Eigen::MatrixXd X = features(train, predictor_columns, train_rows);
  const Response response = read_response(train, response_column, train_rows, o.mode);
  const std::size_t n = train_rows.size();
  for (const std::size_t k : ks) {
    if (!loo && k > n)
      throw data::DataError("k = " + std::to_string(k) + " exceeds the number of training rows n = " + std::to_string(n));
    if (loo && k > n - 1)
      throw data::DataError("k = " + std::to_string(k) + " exceeds n - 1 = " + std::to_string(n - 1) +
                            " (leave-one-out leaves each training row's own row out; n = " + std::to_string(n) + ")");
  }
  auto label = [&](double code) { return response.classes[static_cast<std::size_t>(code)]; };

  nlohmann::ordered_json j;
  auto header = [&](std::size_t n_query) {
    j["k"] = loo ? nlohmann::ordered_json(ks) : nlohmann::ordered_json(ks.front());
    j["mode"] = neighbors::to_string(o.mode);
    j["metric"] = neighbors::to_string(o.metric);
    j["weights"] = neighbors::to_string(o.weights);
    j["n_train"] = n;
    j["n_query"] = n_query;
  };
  if (loo) {
    const auto result = neighbors::knn_loo(X, response.values, ks, o);
    if (a.output == "json") {
      header(0);
      j["backend"] = result.backend;
      j["precision"] = neighbors::to_string(o.precision);
      j["loo"] = nlohmann::json::array();
      for (std::size_t i = 0; i < ks.size(); ++i) j["loo"].push_back({{"k", ks[i]}, {"error", result.errors[i]}});
      j["best_k"] = result.best_k;
      std::cout << j.dump(2) << "\n";
    } else if (a.output == "csv") {
      std::cout << "k,error\n";
      for (std::size_t i = 0; i < ks.size(); ++i) std::cout << ks[i] << ',' << shortest(result.errors[i]) << '\n';
    } else {
      std::cout << "kNN " << neighbors::to_string(o.mode) << ", leave-one-out on " << a.train << ": n = " << n << ", "
                << neighbors::to_string(o.metric) << " distance, " << neighbors::to_string(o.weights) << " weights, backend "
                << result.backend << "\n\n";
      std::printf("%8s  %s\n", "k", o.mode == neighbors::Mode::regression ? "LOO RMSE" : "LOO misclassification rate");
      for (std::size_t i = 0; i < ks.size(); ++i) std::printf("%8zu  %.10g\n", ks[i], result.errors[i]);
      std::cout << "\nbest k = " << result.best_k << "\n";
    }
    return kExitOk;
  }

  const data::Table query = data::read_csv(a.query);
  std::vector<std::size_t> query_columns;
  for (const auto& name : predictor_names) {
    const auto it = std::find_if(query.columns.begin(), query.columns.end(), [&](const data::Column& c) { return c.name == name; });
    if (it == query.columns.end())
      throw data::DataError(a.query + ": no column '" + name + "' (the query file must have every training predictor)");
    query_columns.push_back(static_cast<std::size_t>(it - query.columns.begin()));
  }
  std::size_t query_dropped = 0;
  const auto query_rows = usable_rows(query, query_columns, std::nullopt, a.drop_missing, query_dropped);
  if (query_dropped) std::cerr << "robust-fit: note: dropped " << query_dropped << " query rows with missing or non-finite values (--drop-missing)\n";
  const Eigen::MatrixXd Q = features(query, query_columns, query_rows);
  const auto result = neighbors::knn_predict(X, response.values, Q, o, a.neighbors);
  const std::size_t m = query_rows.size(), k = o.k;
  const bool classify = o.mode == neighbors::Mode::classification;
  auto prediction_text = [&](std::size_t i) {
    return classify ? label(result.predictions[static_cast<Eigen::Index>(i)]) : shortest(result.predictions[static_cast<Eigen::Index>(i)]);
  };
  auto neighbor_row = [&](std::size_t i, std::size_t c) {
    return train_rows[static_cast<std::size_t>(result.neighbors.rows(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)))] + 1;
  };
  auto neighbor_distance = [&](std::size_t i, std::size_t c) {
    return result.neighbors.distances(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c));
  };
  if (a.output == "json") {
    header(m);
    j["backend"] = result.backend;
    j["precision"] = neighbors::to_string(o.precision);
    j["predictions"] = nlohmann::json::array();
    for (std::size_t i = 0; i < m; ++i) {
      if (classify) j["predictions"].push_back(prediction_text(i));
      else j["predictions"].push_back(result.predictions[static_cast<Eigen::Index>(i)]);
    }
    if (a.neighbors) {
      j["neighbors"] = nlohmann::json::array();
      j["distances"] = nlohmann::json::array();
      for (std::size_t i = 0; i < m; ++i) {
        std::vector<std::size_t> rows;
        std::vector<double> distances;
        for (std::size_t c = 0; c < k; ++c) {
          rows.push_back(neighbor_row(i, c));
          distances.push_back(neighbor_distance(i, c));
        }
        j["neighbors"].push_back(rows);
        j["distances"].push_back(distances);
      }
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  const bool csv = a.output == "csv";
  if (!csv)
    std::cout << "kNN " << neighbors::to_string(o.mode) << ", k = " << k << ", " << neighbors::to_string(o.metric) << " distance, "
              << neighbors::to_string(o.weights) << " weights: n_train = " << n << ", n_query = " << m << ", backend "
              << result.backend << "\n\n";
  const std::string sep = csv ? "," : "  ";
  std::cout << "row" << sep << "prediction";
  if (a.neighbors) {
    for (std::size_t c = 1; c <= k; ++c) std::cout << sep << "neighbor_" << c;
    for (std::size_t c = 1; c <= k; ++c) std::cout << sep << "distance_" << c;
  }
  std::cout << '\n';
  for (std::size_t i = 0; i < m; ++i) {
    std::cout << query_rows[i] + 1 << sep << prediction_text(i);
    if (a.neighbors) {
      for (std::size_t c = 0; c < k; ++c) std::cout << sep << neighbor_row(i, c);
      for (std::size_t c = 0; c < k; ++c) std::cout << sep << shortest(neighbor_distance(i, c));
    }
    std::cout << '\n';
  }
  return kExitOk;
}

}  // namespace robustfit::app
