#include "backend_choice.hpp"

#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "cli_error.hpp"
#include "options_util.hpp"

namespace robustfit::app {

BackendChoice choose_backend(const std::string& backend_text, const std::string& algorithm_option,
                             const std::string& algorithm_text, selection::Use use, bool cuda_usable,
                             const std::string& reason) {
  const auto requested = parse_or_usage<selection::Backend>("backend", backend_text, selection::parse_backend);
  const auto algorithm = parse_or_usage<selection::Algorithm>(algorithm_option, algorithm_text, selection::parse_algorithm);
  const selection::Backend chosen = selection::resolve_backend(requested, use, algorithm, cuda_usable);
  if (!selection::offers(chosen, use, algorithm))
    throw UsageError("--" + algorithm_option + " " + algorithm_text + " with --backend " + backend_text + ": " +
                     selection::unavailable_message(chosen, use, algorithm));
  if (chosen == selection::Backend::cuda && !cuda_usable)
    throw UsageError("--backend " + backend_text + ": " +
                     selection::cuda_unavailable_message(requested, use, algorithm, reason));
  return {chosen, algorithm};
}

selection::Backend estimator_backend(const BackendChoice& choice, const std::string& backend_text) {
  return backend_text == "auto" ? selection::Backend::automatic : choice.backend;
}

std::string algorithm_help(selection::Use use) {
  return selection::offered_summary(use);
}

std::string backend_help() {
  return "auto | cpu | cuda (auto: the backend that has the algorithm when only one has it, "
         "else CUDA when a GPU is usable and, for fit and mcd, the fit is large enough to gain from it "
         "(a cost model in n * p * subsets), else the CPU)";
}

bool worth_a_gpu(const std::string& data_file) {
  std::error_code error;
  const auto bytes = std::filesystem::file_size(data_file, error);
  return !error && bytes >= (std::uintmax_t{4} << 20);
}

}  // namespace robustfit::app
