#include <gtest/gtest.h>

#include <stdexcept>

#include "robustfit/neighbors/knn.hpp"

namespace nb = robustfit::neighbors;

TEST(KnnNames, RoundTripAndRejectUnknown) {
  for (auto m : {nb::Metric::euclidean, nb::Metric::manhattan}) EXPECT_EQ(nb::parse_metric(nb::to_string(m)), m);
  for (auto w : {nb::Weights::uniform, nb::Weights::distance}) EXPECT_EQ(nb::parse_weights(nb::to_string(w)), w);
  for (auto m : {nb::Mode::regression, nb::Mode::classification}) EXPECT_EQ(nb::parse_mode(nb::to_string(m)), m);
  for (auto p : {nb::Precision::double_precision, nb::Precision::single_precision})
    EXPECT_EQ(nb::parse_precision(nb::to_string(p)), p);
  EXPECT_THROW(nb::parse_metric("cosine"), std::invalid_argument);
  EXPECT_THROW(nb::parse_weights("rank"), std::invalid_argument);
  EXPECT_THROW(nb::parse_mode("ranking"), std::invalid_argument);
  EXPECT_THROW(nb::parse_precision("half"), std::invalid_argument);
}
