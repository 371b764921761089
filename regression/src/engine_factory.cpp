#include "engine_factory.hpp"

#include <stdexcept>
#include <string>

#include "cpu_engine.hpp"
#ifdef ROBUSTFIT_CUDA_ENGINE
#include "cuda/device_row_reductions.hpp"
#include "cuda/device_ops.hpp"
#include "cuda/device_standardized_rows.hpp"
#endif
#include "robustfit/common/parallel.hpp"
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

}  // namespace

Backend engine_backend(Backend backend, selection::Algorithm selection, Precision precision,
                       std::optional<SearchSize> search) {
  // The engines select one rank per candidate column: the table's "batched" use.
  constexpr auto use = selection::Use::batched;
  const bool cuda_usable = cuda_backend_available();
  Backend chosen = selection::resolve_backend(backend, use, selection, cuda_usable);
  if (backend == Backend::automatic && chosen == Backend::cuda && search && precision == Precision::double_precision &&
      selection::offers(Backend::cpu, use, selection) && !cuda_pays_off(*search, common::worker_count(search->subsets)))
    chosen = Backend::cpu;
  selection::require_offered(chosen, use, selection);
  if (chosen == Backend::cuda && !cuda_usable)
    throw std::invalid_argument(selection::cuda_unavailable_message(backend, use, selection, cuda_unavailable_reason()));
  selection::require_precision_on(precision, backend, chosen,
                                  cuda_usable ? ", but selection algorithm '" + std::string(selection::to_string(selection)) +
                                                    "' runs on the CPU backend only"
                                              : ", which is not available: " + cuda_unavailable_reason());
  return chosen;
}

std::unique_ptr<Engine> make_engine(const ModelData& data, Backend backend, selection::Algorithm selection,
                                    Precision precision, std::optional<SearchSize> search) {
  [[maybe_unused]] const Backend chosen = engine_backend(backend, selection, precision, search);
#ifdef ROBUSTFIT_CUDA_ENGINE
  if (chosen == Backend::cuda) return make_cuda_engine(data, selection, precision);
#endif
  return std::make_unique<CpuEngine>(data, selection);
}

std::unique_ptr<StandardizedRows> standardized_rows_on_device(Eigen::Ref<const Eigen::MatrixXd> X, Backend backend,
                                                              selection::Algorithm selection, const SearchSize& search,
                                                              const Engine* holder, std::size_t first) {
#ifdef ROBUSTFIT_CUDA_ENGINE
  Backend chosen = Backend::cpu;
  try {
    chosen = engine_backend(backend, selection, Precision::double_precision, search);
  } catch (const std::invalid_argument&) {
    return nullptr;  // make_engine says why, where the host's path asks for the engine
  }
  if (chosen == Backend::cuda && static_cast<std::size_t>(X.rows()) >= cuda::kDeviceStandardizedMinRows &&
      static_cast<std::size_t>(X.cols()) <= cuda::kMaxMomentColumns) {
    if (holder != nullptr)
      if (auto copied = holder->standardized_columns(first, static_cast<std::size_t>(X.cols()))) return copied;
    return std::make_unique<cuda::DeviceStandardizedRows>(X, selection);
  }
#endif
  (void)X, (void)backend, (void)selection, (void)search, (void)holder, (void)first;
  return nullptr;
}

std::jthread warm_up_cuda_for(Backend backend, selection::Algorithm selection, Precision precision,
                              const SearchSize& search) {
  try {
    if (engine_backend(backend, selection, precision, search) == Backend::cuda) return selection::warm_up_cuda_context();
  } catch (const std::exception&) {
  }
  return {};
}

std::unique_ptr<RowReductions> one_process_reductions(Backend backend) {
#ifdef ROBUSTFIT_CUDA_ENGINE
  if (backend == Backend::cuda) return std::make_unique<cuda::DeviceRowReductions>();
#endif
  (void)backend;
  return std::make_unique<RowReductions>();
}

std::unique_ptr<RowReductions> device_reductions(const DeviceDesign& design, std::size_t factors_min_work) {
#ifdef ROBUSTFIT_CUDA_ENGINE
  return std::make_unique<cuda::DeviceRowReductions>(design, factors_min_work);
#else
  (void)design, (void)factors_min_work;
  return nullptr;
#endif
}

std::unique_ptr<RowReductions> one_process_reductions(const Engine& engine) {
#ifdef ROBUSTFIT_CUDA_ENGINE
  if (engine.backend_name() == "cuda") return std::make_unique<cuda::DeviceRowReductions>(engine.device_design());
#endif
  return one_process_reductions(engine.backend_name() == "cuda" ? Backend::cuda : Backend::cpu);
}

}  // namespace detail
}  // namespace robustfit::regression
