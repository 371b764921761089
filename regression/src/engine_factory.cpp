#include "engine_factory.hpp"

#include <stdexcept>
#include <string>

#include "cpu_engine.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/selection/gpu.hpp"

namespace robustfit::regression {

bool cuda_backend_available() {
#ifdef ROBUSTFIT_CUDA_ENGINE
  return selection::cuda_available();
#else
  return false;
#endif
}

namespace detail {

namespace {

std::string cuda_unavailable_reason() {
#ifdef ROBUSTFIT_CUDA_ENGINE
  return selection::cuda_device_description();
#else
  return "this build of robust-fit has no CUDA regression engine";
#endif
}

bool cpu_offers(selection::Algorithm algorithm) {
  return algorithm == selection::Algorithm::automatic || algorithm == selection::Algorithm::nth_element;
}

}  // namespace

std::unique_ptr<Engine> make_engine(const ModelData& data, Backend backend, selection::Algorithm selection) {
  const bool cuda = backend == Backend::cuda || (backend == Backend::automatic && cuda_backend_available());
  if (backend == Backend::cuda && !cuda_backend_available())
    throw std::invalid_argument("the CUDA backend was requested but is not available: " + cuda_unavailable_reason());
#ifdef ROBUSTFIT_CUDA_ENGINE
  if (cuda) return make_cuda_engine(data, selection);
#endif
  if (!cpu_offers(selection))
    throw std::invalid_argument("selection algorithm '" + std::string(selection::to_string(selection)) +
                                "' runs on the CUDA backend only (the CPU backend uses nth-element)" +
                                (cuda ? "" : "; CUDA: " + cuda_unavailable_reason()));
  return std::make_unique<CpuEngine>(data.X, data.y);
}

}  // namespace detail
}  // namespace robustfit::regression
