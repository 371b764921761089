#pragma once
// Elemental p-subsets: seeded random draws, exhaustive enumeration, and the loop that turns
// them into candidate fits (redrawing singular ones). Shared by the LTS and LMS drivers.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine.hpp"
#include "robustfit/common/random.hpp"

namespace robustfit::regression::detail {

using common::Random;

// C(n, p) as a double (inf when it overflows): only compared with small limits.
double binomial(std::size_t n, std::size_t p);

// `count` subsets of p distinct rows of [0, n), each sorted (Floyd's algorithm).
SubsetMatrix draw_subsets(Random& random, std::size_t n, std::size_t p, std::size_t count);

// Every p-subset of [0, n) in lexicographic order (C(n, p) columns).
SubsetMatrix enumerate_subsets(std::size_t n, std::size_t p);

// The p-subsets of [0, n) in lexicographic order, a chunk at a time (--subsets all streams
// C(n, p) up to 1e8 subsets through a bounded memory).
class SubsetEnumerator {
 public:
  SubsetEnumerator(std::size_t n, std::size_t p);
  // The next min(count, remaining()) subsets as columns.
  SubsetMatrix next(std::size_t count);
  std::uint64_t total() const { return total_; }
  std::uint64_t visited() const { return visited_; }  // the enumeration index of the next subset
  std::uint64_t remaining() const { return total_ - visited_; }

 private:
  std::size_t n_, p_;
  std::uint64_t total_, visited_ = 0;
  std::vector<std::int64_t> current_;
};

// Throws std::invalid_argument naming C(n, p) when it exceeds max_all_subsets (options.hpp).
void require_enumerable(std::size_t n, std::size_t p);

// Solves X_S beta = y_S for each subset S (column of `subsets`) by fully pivoted LU; ok[j] = 0
// when X_S is singular (a pivot at most 1e-12 of the largest; beta undefined then). Every
// engine solves its elemental systems here, on the host in double: the candidates, and which
// subsets count as singular (singular ones are redrawn), are then the same bit for bit on
// every backend. A batched GPU LU rounds differently and can flip a near-singular decision,
// after which the draws, and the fit, diverge. p x p systems: milliseconds for thousands.
void solve_elemental_systems(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const SubsetMatrix& subsets,
                             Eigen::MatrixXd& betas, std::vector<std::uint8_t>& ok);

struct Candidates {
  Eigen::MatrixXd betas;       // p x m, non-singular elemental fits only
  std::size_t tried = 0;       // subsets whose system was solved (singular ones included)
  std::size_t singular = 0;
};

// `count` elemental fits from random subsets; singular subsets are redrawn (up to a bound,
// then the candidates found so far are used). Throws std::invalid_argument if none is regular.
Candidates random_elemental_fits(Engine& engine, Random& random, std::size_t count);

// All C(n, p) elemental fits (singular ones skipped).
Candidates exhaustive_elemental_fits(Engine& engine);

}  // namespace robustfit::regression::detail
