#pragma once
// Picks and builds the engine for a backend request.
#include <memory>
#include <optional>
#include <thread>

#include "backend_cost.hpp"
#include "design_matrix.hpp"
#include "engine.hpp"
#include "row_reductions.hpp"
#include "standardized_rows.hpp"
#include "robustfit/regression/options.hpp"

namespace robustfit::regression::detail {

// The backend follows selection::resolve_backend for batched columns (automatic: the only
// backend that has `selection`, else CUDA when this build has the CUDA engine and a device is
// usable, else CPU); for automatic with both backends open and double precision, a given
// `search` size then keeps small searches on the CPU where cuda_pays_off says so. Throws std::invalid_argument when the chosen backend does not offer
// `selection` (the capability table's message), when CUDA is chosen but unavailable (saying
// why), or when single precision is asked of the CPU engine (which computes in double only).
// The engine may refer to `data` without copying it: `data` must outlive the engine.
std::unique_ptr<Engine> make_engine(const ModelData& data, Backend backend, selection::Algorithm selection,
                                    Precision precision = Precision::double_precision,
                                    std::optional<SearchSize> search = std::nullopt);

// The backend make_engine chooses for these arguments (with its checks and errors), without
// building the engine.
Backend engine_backend(Backend backend, selection::Algorithm selection, Precision precision = Precision::double_precision,
                       std::optional<SearchSize> search = std::nullopt);

// FAST-MCD's standardized rows made on the device (standardized_rows.hpp), X uploaded, when
// make_engine would choose the CUDA engine for `search` in double precision and X has enough
// rows (cuda::kDeviceStandardizedMinRows); else null (also
// when make_engine would throw: it then says why where the search asks for its engine). Throws
// selection::cuda::OutOfMemory when X does not fit on the device. `holder`: an engine that keeps
// X as its columns first .. (LTS's design, for its robust distances): copied from there on the
// device when it can (Engine::standardized_columns) instead of uploaded again.
std::unique_ptr<StandardizedRows> standardized_rows_on_device(Eigen::Ref<const Eigen::MatrixXd> X, Backend backend,
                                                              selection::Algorithm selection, const SearchSize& search,
                                                              const Engine* holder = nullptr, std::size_t first = 0);

// The reductions over all rows (row_reductions.hpp) of a one-process fit whose engine runs on
// `backend`: with CUDA the GPU's (cuda/device_row_reductions.hpp: the same answers, the large
// selections and sorts on the device), else the host's.
std::unique_ptr<RowReductions> one_process_reductions(Backend backend);
// Where a search of `search`'s size would run on the CUDA engine: the CUDA context started on a
// thread of its own (selection::warm_up_cuda_context; ~0.3 s on an H200), to come up while the
// host checks and copies the design. Otherwise, or for options make_engine will refuse, an
// empty thread (a small fit that stays on the CPU does not wait for a context it never uses).
std::jthread warm_up_cuda_for(Backend backend, selection::Algorithm selection, Precision precision,
                              const SearchSize& search);
// The same for an engine: after its backend_name(); a CUDA engine's device copy of [X y]
// (device_design) also serves the finish's QR factors. The engine must outlive the result.
std::unique_ptr<RowReductions> one_process_reductions(const Engine& engine);

// The reductions of one process with local_factors on the device over `design` (a device copy of
// this part's [X y]; DeviceRowFactors) from factors_min_work rows x (p + 1)^2 on
// (DeviceRowReductions); null in a build without the CUDA engine. The design must outlive the result.
std::unique_ptr<RowReductions> device_reductions(const DeviceDesign& design, std::size_t factors_min_work);

#ifdef ROBUSTFIT_CUDA_ENGINE
std::unique_ptr<Engine> make_cuda_engine(const ModelData& data, selection::Algorithm selection, Precision precision);
#endif

}  // namespace robustfit::regression::detail
