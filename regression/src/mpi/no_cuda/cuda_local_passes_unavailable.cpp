// A build without CUDA: the distributed engine's passes run on the ranks' CPUs only.
#include <stdexcept>

#include "../local_passes.hpp"

namespace robustfit::regression::detail {

std::unique_ptr<LocalPasses> make_cuda_local_passes(const Eigen::MatrixXd&, const Eigen::VectorXd&) {
  throw std::runtime_error("this build of robust-fit has no CUDA backend");
}

}  // namespace robustfit::regression::detail
