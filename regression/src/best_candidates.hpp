#pragma once
// The best few of a stream of candidates (the columns of coefficient matrices, each with its
// objective and its index in the stream): --subsets all visits up to 1e8 elemental subsets a
// chunk at a time and keeps only these.
//
// Order: smaller objective first, equal objectives by smaller index. A candidate equal bit for
// bit, objective and coefficients, to one already kept is dropped (as robustbase's FAST-LTS
// stores its ten best: exhaustive starts reach the same fit from many subsets). Offered in
// index order, the kept set is the same however the stream is cut into chunks.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace robustfit::regression::detail {

class BestCandidates {
 public:
  explicit BestCandidates(std::size_t capacity) : capacity_(capacity) {}

  void offer(const Eigen::Ref<const Eigen::VectorXd>& candidate, double objective, std::uint64_t index);

  std::size_t size() const { return kept_.size(); }
  std::size_t capacity() const { return capacity_; }
  Eigen::MatrixXd columns() const;       // best first
  std::vector<double> objectives() const;  // in the same order
  std::vector<std::uint64_t> indices() const;

 private:
  struct Kept {
    Eigen::VectorXd candidate;
    double objective;
    std::uint64_t index;
  };
  std::size_t capacity_;
  std::vector<Kept> kept_;  // sorted best first
};

}  // namespace robustfit::regression::detail
