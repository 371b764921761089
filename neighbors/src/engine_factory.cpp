#include "engine_factory.hpp"

#include <stdexcept>
#include <string>

#include "robustfit/selection/gpu.hpp"

namespace robustfit::neighbors {

bool cuda_backend_available() {
#ifdef ROBUSTFIT_CUDA_NEIGHBORS
  return selection::cuda_available();
#else
  return false;
#endif
}

namespace detail {

namespace {

std::string cuda_unavailable_reason() {
#ifdef ROBUSTFIT_CUDA_NEIGHBORS
  return selection::cuda_device_description();
#else
  return "this build of robust-fit has no CUDA kNN engine";
#endif
}

}  // namespace

std::unique_ptr<Engine> make_engine(const RowMatrix& train, Metric metric, selection::Backend backend,
                                    Precision precision) {
  using selection::Backend;
  const bool cuda = backend == Backend::cuda || (backend == Backend::automatic && cuda_backend_available());
  if (backend == Backend::cuda && !cuda_backend_available())
    throw std::invalid_argument("backend: the CUDA backend was requested but is not available: " + cuda_unavailable_reason());
  selection::require_precision_on(precision, backend, cuda ? Backend::cuda : Backend::cpu,
                                  ", which is not available: " + cuda_unavailable_reason());
#ifdef ROBUSTFIT_CUDA_NEIGHBORS
  if (cuda) return make_cuda_engine(train, metric, precision);
#endif
  return make_cpu_engine(train, metric);
}

}  // namespace detail
}  // namespace robustfit::neighbors
