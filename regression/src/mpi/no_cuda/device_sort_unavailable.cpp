// A build without CUDA: the sample sorts' local sorts run on the host.
#include "../local_sort.hpp"

namespace robustfit::regression::detail {

bool sort_on_gpu(std::span<const double>, std::span<double>, std::string* why) {
  if (why) *why = "this build of robust-fit has no CUDA backend";
  return false;
}

}  // namespace robustfit::regression::detail
