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

std::unique_ptr<Engine> make_engine(const ModelData& data, Backend backend, selection::Algorithm selection,
                                    Precision precision) {
  const bool cuda = backend == Backend::cuda || (backend == Backend::automatic && cuda_backend_available());
  if (backend == Backend::cuda && !cuda_backend_available())
    throw std::invalid_argument("the CUDA backend was requested but is not available: " + cuda_unavailable_reason());
  // Never a silent fall-back to double: float was asked for, so it is the CUDA engine or an error.
  if (precision == Precision::single_precision && backend == Backend::cpu)
    throw std::invalid_argument("single precision (float) is offered by the CUDA backend only; the CPU backend computes in double");
  if (precision == Precision::single_precision && !cuda)
    throw std::invalid_argument("single precision (float) needs the CUDA backend, which is not available: " +
                                cuda_unavailable_reason());
#ifdef ROBUSTFIT_CUDA_ENGINE
  if (cuda) return make_cuda_engine(data, selection, precision);
#endif
  if (!cpu_offers(selection))
    throw std::invalid_argument("selection algorithm '" + std::string(selection::to_string(selection)) +
                                "' runs on the CUDA backend only (the CPU backend uses nth-element)" +
                                (cuda ? "" : "; CUDA: " + cuda_unavailable_reason()));
  return std::make_unique<CpuEngine>(data);
}

}  // namespace detail
}  // namespace robustfit::regression
