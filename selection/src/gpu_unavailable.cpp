// Built when the project is configured without CUDA: the GPU entry points report why.
#include <stdexcept>

#include "robustfit/selection/gpu.hpp"

namespace robustfit::selection {

bool cuda_available() { return false; }
std::string cuda_device_description() { return "this build of robust-fit has no CUDA support"; }
std::jthread warm_up_cuda_context() { return {}; }

template <class T>
std::vector<T> cuda_kth_smallest_many(std::span<const T>, std::span<const std::size_t>, Algorithm) {
  throw std::runtime_error("the CUDA backend is not available: " + cuda_device_description());
}
template std::vector<float> cuda_kth_smallest_many<float>(std::span<const float>,
                                                          std::span<const std::size_t>, Algorithm);
template std::vector<double> cuda_kth_smallest_many<double>(std::span<const double>,
                                                            std::span<const std::size_t>, Algorithm);

}  // namespace robustfit::selection
