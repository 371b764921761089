// knn_search and the driver's validation and standardisation.
#include <cmath>
#include <stdexcept>
#include <string>

#include "driver.hpp"
#include "engine_factory.hpp"
#include "host_parallel.hpp"
#include "list_allocator.hpp"

namespace robustfit::neighbors {

namespace detail {

void require_finite(const Eigen::MatrixXd& values, const std::string& what) {
  for (Eigen::Index j = 0; j < values.cols(); ++j)
    for (Eigen::Index i = 0; i < values.rows(); ++i)
      if (!std::isfinite(values(i, j)))
        throw std::invalid_argument(what + ": row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1) +
                                    " is " + (std::isnan(values(i, j)) ? "NaN" : "infinite") +
                                    " (every value must be finite)");
}

void require_k(std::size_t k, std::size_t limit, const std::string& limit_text) {
  if (k == 0) throw std::invalid_argument("k: must be at least 1");
  if (k > limit)
    throw std::invalid_argument("k: " + std::to_string(k) + " exceeds " + limit_text);
}

std::size_t check_response(const Eigen::VectorXd& response, std::size_t n, Mode mode) {
  if (static_cast<std::size_t>(response.size()) != n)
    throw std::invalid_argument("response: " + std::to_string(response.size()) + " values for " + std::to_string(n) +
                                " training rows");
  std::size_t classes = 0;
  for (Eigen::Index i = 0; i < response.size(); ++i) {
    const double v = response[i];
    if (!std::isfinite(v))
      throw std::invalid_argument("response: row " + std::to_string(i + 1) + " is not finite");
    if (mode == Mode::classification) {
      if (v < 0 || v != std::floor(v) || v > 1e9)
        throw std::invalid_argument("response: row " + std::to_string(i + 1) +
                                    " is not a class code (classification needs integers 0..C-1)");
      classes = std::max(classes, static_cast<std::size_t>(v) + 1);
    }
  }
  return classes;
}

Prepared prepare(const Eigen::MatrixXd& train, const Eigen::MatrixXd* queries, const KnnOptions& options) {
  if (train.rows() == 0) throw std::invalid_argument("train: no rows");
  if (train.cols() == 0) throw std::invalid_argument("train: no feature columns");
  require_finite(train, "train");
  if (queries) {
    if (queries->rows() == 0) throw std::invalid_argument("queries: no rows");
    if (queries->cols() != train.cols())
      throw std::invalid_argument("queries: " + std::to_string(queries->cols()) + " columns, the training data has " +
                                  std::to_string(train.cols()));
    require_finite(*queries, "queries");
  }
  Prepared p{train, queries ? RowMatrix(*queries) : RowMatrix()};
  if (options.standardize) {
    // Population sd (ddof 0) as scikit-learn's StandardScaler; a constant column keeps scale 1.
    const Eigen::RowVectorXd mean = p.train.colwise().mean();
    Eigen::RowVectorXd scale = ((p.train.rowwise() - mean).colwise().squaredNorm() / static_cast<double>(train.rows())).cwiseSqrt();
    for (Eigen::Index j = 0; j < scale.size(); ++j)
      if (!(scale[j] > 0)) scale[j] = 1;
    p.train = (p.train.rowwise() - mean).array().rowwise() / scale.array();
    if (queries) p.queries = (p.queries.rowwise() - mean).array().rowwise() / scale.array();
  }
  return p;
}

std::size_t query_chunk(std::size_t k) { return std::max<std::size_t>(1, (std::size_t{1} << 24) / k); }

}  // namespace detail

NeighborResult knn_search(const Eigen::MatrixXd& train, const Eigen::MatrixXd& queries, const KnnOptions& options) {
  const auto p = detail::prepare(train, &queries, options);
  const std::size_t n = static_cast<std::size_t>(train.rows());
  detail::require_k(options.k, n, "the number of training points n = " + std::to_string(n));
  auto engine = detail::make_engine(p.train, options.metric, options.backend, options.precision);
  const auto lists = engine->nearest(p.queries, options.k, true, std::nullopt);
  NeighborResult result;
  result.backend = engine->name();
  const auto m = static_cast<Eigen::Index>(lists.queries), k = static_cast<Eigen::Index>(lists.k);
  // Row-major m x k, the lists' layout: one copy each, onto huge pages and spread over threads
  // when large (a GB at 2^16 queries x k = 1000).
  result.rows.resize(m, k);
  result.distances.resize(m, k);
  detail::advise_huge_pages(result.rows.data(), lists.rows.size() * sizeof(std::int64_t));
  detail::advise_huge_pages(result.distances.data(), lists.distances.size() * sizeof(double));
  const unsigned workers = detail::host_workers();
  detail::copy_in_parts(lists.rows.data(), result.rows.data(), lists.rows.size(), workers);
  detail::copy_in_parts(lists.distances.data(), result.distances.data(), lists.distances.size(), workers);
  return result;
}

}  // namespace robustfit::neighbors
