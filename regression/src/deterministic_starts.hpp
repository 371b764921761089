#pragma once
// Deterministic starts for the elemental searches, in the spirit of DetLTS / DetMCD (Hubert,
// Rousseeuw & Verdonck 2012): a few robust initial fits that need no random draw, each the LS fit
// on a set of rows that are central by a robust, affine-free measure. They join the random
// starts of the default search (fast_lts.cpp, lms.cpp); computed on the host from the driver's
// data, so every backend gets the same columns.
#include <Eigen/Core>
#include <cstddef>
#include <vector>

#include "design_matrix.hpp"

namespace robustfit::regression::detail {

// Up to six coefficient columns (p x k; rank-deficient row sets are left out): LS on the h and
// on the ceil(h / 2) rows with the smallest
//   |z(x)|^2            predictors standardised by column median and MAD (x-central: no leverage)
//   |z(x)|^2 + z(y)^2   the same with the response (central in the joint space)
//   z(y)^2              the response alone (y-central: no vertical outliers)
// Ties go to the smaller row. Columns with a MAD of zero are scaled by their mean absolute
// deviation from the median, or left out when that is zero too. Above 20000 rows all of this runs
// on the evenly strided subsample of 20000 rows (rows i n / 20000), h scaled with it.
Eigen::MatrixXd deterministic_starts(const ModelData& data, std::size_t h);

// The same in two steps, for data spread over processes: the rows the starts read (empty: all
// n rows; else the strided subsample, at most 20000), and the starts from those rows (`sample`
// holding them in that order; all n rows when the list was empty).
std::vector<std::size_t> deterministic_sample_rows(std::size_t n);
Eigen::MatrixXd deterministic_starts_of_sample(const ModelData& sample, std::size_t h, std::size_t n);

}  // namespace robustfit::regression::detail
