// knn_predict and knn_loo: hand-computed predictions, the documented weight and tie rules, and
// leave-one-out against a brute-force computation.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>

#include "brute_force.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/neighbors/knn.hpp"

namespace nb = robustfit::neighbors;

namespace {

nb::KnnOptions options_for(std::size_t k, nb::Mode mode, nb::Weights weights) {
  nb::KnnOptions o;
  o.k = k;
  o.mode = mode;
  o.weights = weights;
  o.backend = robustfit::selection::Backend::cpu;
  return o;
}

Eigen::MatrixXd column(std::initializer_list<double> values) {
  Eigen::MatrixXd X(static_cast<Eigen::Index>(values.size()), 1);
  Eigen::Index i = 0;
  for (double v : values) X(i++, 0) = v;
  return X;
}

}  // namespace

TEST(KnnPredict, RegressionByHand) {
  const Eigen::MatrixXd train = column({0, 1, 3, 6});
  const Eigen::VectorXd y = (Eigen::VectorXd(4) << 10, 20, 40, 80).finished();
  const Eigen::MatrixXd q = column({1.5, 3});
  // q = 1.5: neighbours x=1 (0.5), x=0 (1.5) [x=3 also 1.5 but row 2 > row 0].
  auto uniform = nb::knn_predict(train, y, q, options_for(2, nb::Mode::regression, nb::Weights::uniform), true);
  EXPECT_DOUBLE_EQ(uniform.predictions[0], 15);
  EXPECT_EQ(uniform.neighbors.rows(0, 0), 1);
  EXPECT_EQ(uniform.neighbors.rows(0, 1), 0);
  EXPECT_EQ(uniform.neighbors.distances(0, 1), 1.5);
  auto weighted = nb::knn_predict(train, y, q, options_for(2, nb::Mode::regression, nb::Weights::distance));
  EXPECT_DOUBLE_EQ(weighted.predictions[0], (20 / 0.5 + 10 / 1.5) / (1 / 0.5 + 1 / 1.5));
  // q = 3 is a training point: with distance weights it takes all the weight.
  EXPECT_DOUBLE_EQ(weighted.predictions[1], 40);
  auto three = nb::knn_predict(train, y, column({3}), options_for(3, nb::Mode::regression, nb::Weights::uniform));
  // q = 3, k = 3: x=3 (0), x=1 (2), then x=0 and x=6 tie at 3: row 0 wins.
  EXPECT_DOUBLE_EQ(three.predictions[0], (40 + 20 + 10) / 3.0);
}

TEST(KnnPredict, ExactMatchesShareTheWeight) {
  const Eigen::MatrixXd train = column({2, 2, 5});
  const Eigen::VectorXd y = (Eigen::VectorXd(3) << 1, 3, 100).finished();
  auto p = nb::knn_predict(train, y, column({2}), options_for(3, nb::Mode::regression, nb::Weights::distance));
  EXPECT_DOUBLE_EQ(p.predictions[0], 2);
}

TEST(KnnPredict, ClassificationVoteAndTieRule) {
  const Eigen::MatrixXd train = column({0, 1, 2, 3, 10});
  const Eigen::VectorXd labels = (Eigen::VectorXd(5) << 1, 0, 0, 1, 2).finished();
  // q = 1.2, k = 3: rows 1 (0.2, class 0), 2 (0.8, class 0), 0 (1.2, class 1) -> class 0.
  auto p = nb::knn_predict(train, labels, column({1.2}), options_for(3, nb::Mode::classification, nb::Weights::uniform));
  EXPECT_EQ(p.predictions[0], 0);
  // q = 0.4, k = 2: rows 0 (0.4, class 1), 1 (0.6, class 0): a tied vote; the nearest is class 1.
  p = nb::knn_predict(train, labels, column({0.4}), options_for(2, nb::Mode::classification, nb::Weights::uniform));
  EXPECT_EQ(p.predictions[0], 1);
  // q = 0.5, k = 2: both at 0.5; the nearest by (distance, row) is row 0, class 1.
  p = nb::knn_predict(train, labels, column({0.5}), options_for(2, nb::Mode::classification, nb::Weights::uniform));
  EXPECT_EQ(p.predictions[0], 1);
  // Distance weights: q = 2.9, k = 4: class 1 gets 1/0.1 + 1/2.9, class 0 gets 1/0.9 + 1/1.9 -> class 1.
  p = nb::knn_predict(train, labels, column({2.9}), options_for(4, nb::Mode::classification, nb::Weights::distance));
  EXPECT_EQ(p.predictions[0], 1);
  EXPECT_THROW(nb::knn_predict(train, (Eigen::VectorXd(5) << 0, 1, 0.5, 1, 0).finished(), column({1}),
                               options_for(1, nb::Mode::classification, nb::Weights::uniform)),
               std::invalid_argument);
}

TEST(KnnPredict, StandardizeUsesTrainingMeanAndPopulationSd) {
  // Column 2 spans 1000x column 1; z-scored, both count alike.
  Eigen::MatrixXd train(4, 2);
  train << 0, 0, 1, 3000, 2, 1000, 3, 2000;
  const Eigen::VectorXd y = (Eigen::VectorXd(4) << 1, 2, 3, 4).finished();
  Eigen::MatrixXd q(1, 2);
  q << 0.1, 2900;
  auto o = options_for(1, nb::Mode::regression, nb::Weights::uniform);
  EXPECT_EQ(nb::knn_predict(train, y, q, o).predictions[0], 2);  // raw: column 2 dominates
  o.standardize = true;
  // mean (1.5, 1500), sd (sqrt(1.25), sqrt(1.25e6)): z(q) = (-1.2, 1.2)/sqrt(1.25);
  // nearest z-scored: row 1 z = (-0.5, 1.5)/1.118 -> distance^2 = (0.7^2+0.3^2)/1.25 = 0.464;
  // row 0 z = (-1.5,-1.5)/1.118 -> (0.09+7.29)/1.25; row 3 (1.5,0.5) -> (7.29+0.49)/1.25.
  EXPECT_EQ(nb::knn_predict(train, y, q, o).predictions[0], 2);
  q << 0.1, 100;  // raw nearest: row 0 (dist^2 = 0.01 + 1e4); z-scored: row 0 too
  EXPECT_EQ(nb::knn_predict(train, y, q, o).predictions[0], 1);
  q << 2.9, 10;  // raw nearest: row 0 (dist ~10); z-scored: (1.4,-1.49) -> row 2 (0.5,-0.5): (0.81+0.98)
  o.standardize = false;
  EXPECT_EQ(nb::knn_predict(train, y, q, o).predictions[0], 1);
  o.standardize = true;
  EXPECT_EQ(nb::knn_predict(train, y, q, o).predictions[0], 3);
  // A constant column is centred and left unscaled (as scikit-learn's StandardScaler).
  Eigen::MatrixXd constant(3, 2);
  constant << 0, 5, 1, 5, 2, 5;
  Eigen::MatrixXd cq(1, 2);
  cq << 0.9, 5;
  EXPECT_EQ(nb::knn_predict(constant, Eigen::Vector3d(7, 8, 9), cq, o).predictions[0], 8);
}

TEST(KnnLoo, EqualsBruteForce) {
  robustfit::common::Random random(77);
  const Eigen::Index n = 120;
  Eigen::MatrixXd X(n, 3);
  Eigen::VectorXd y(n), labels(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < 3; ++j) X(i, j) = static_cast<double>(random.below(4));  // ties
    y[i] = X.row(i).sum() + random.normal();
    labels[i] = static_cast<double>((X(i, 0) + X(i, 1) > 3 ? 1 : 0) + (random.uniform() < 0.2 ? 1 : 0));
  }
  const std::vector<std::size_t> ks = {1, 3, 10, 119};
  for (auto mode : {nb::Mode::regression, nb::Mode::classification})
    for (auto weights : {nb::Weights::uniform, nb::Weights::distance}) {
      const Eigen::VectorXd& response = mode == nb::Mode::regression ? y : labels;
      const auto loo = nb::knn_loo(X, response, ks, options_for(1, mode, weights));
      std::size_t best = 0;
      for (std::size_t a = 0; a < ks.size(); ++a) {
        double loss = 0;
        for (Eigen::Index i = 0; i < n; ++i) {
          // Each point predicted by knn_predict on the data without its own row.
          Eigen::MatrixXd others(n - 1, 3);
          Eigen::VectorXd other_response(n - 1);
          for (Eigen::Index r = 0, o = 0; r < n; ++r)
            if (r != i) {
              others.row(o) = X.row(r);
              other_response[o++] = response[r];
            }
          const auto p = nb::knn_predict(others, other_response, X.row(i), options_for(ks[a], mode, weights)).predictions[0];
          loss += mode == nb::Mode::regression ? (p - response[i]) * (p - response[i]) : (p != response[i]);
        }
        const double expected = mode == nb::Mode::regression ? std::sqrt(loss / n) : loss / n;
        EXPECT_DOUBLE_EQ(loo.errors[a], expected) << "k=" << ks[a];
        if (loo.errors[a] < loo.errors[best]) best = a;
      }
      EXPECT_EQ(loo.best_k, ks[best]);
    }
}

TEST(KnnLoo, RejectsKAboveNMinusOne) {
  const Eigen::MatrixXd X = Eigen::MatrixXd::Random(5, 2);
  const Eigen::VectorXd y = Eigen::VectorXd::Random(5);
  const std::vector<std::size_t> ks = {2, 5};
  try {
    nb::knn_loo(X, y, ks, options_for(1, nb::Mode::regression, nb::Weights::uniform));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("n - 1 = 4"), std::string::npos) << e.what();
  }
}
