#pragma once
// The backend/algorithm choice of a subcommand, checked against the capability table
// (robustfit/selection/capabilities.hpp) before any data is read, and the help texts of
// --backend and of the algorithm options, generated from the same table.
#include <string>

#include "robustfit/selection/capabilities.hpp"

namespace robustfit::app {

struct BackendChoice {
  selection::Backend backend;  // cpu or cuda: where it runs
  selection::Algorithm algorithm;
};

// `algorithm_option` names the subcommand's option ("algorithm", "selection"); `cuda_usable`
// says whether this build and machine can run CUDA, `reason` why not. Throws a UsageError
// (exit 2) for an unknown name, for an algorithm the chosen backend does not offer for `use`
// (the table's message, listing what is offered) and for a CUDA choice where CUDA is not usable.
BackendChoice choose_backend(const std::string& backend_text, const std::string& algorithm_option,
                             const std::string& algorithm_text, selection::Use use, bool cuda_usable,
                             const std::string& reason);

// The backend to give an estimator (fit, mcd): automatic when the user asked for auto, so that
// the estimator's cost model (regression/src/backend_cost.cpp) can keep small fits on the CPU
// (it resolves to choice.backend otherwise); choice.backend for cpu and cuda.
selection::Backend estimator_backend(const BackendChoice& choice, const std::string& backend_text);

// True when the file is large enough (4 MB and more: some 4*10^4 rows of ten numbers) for a fit
// on it to run on the GPU where auto decides: then the CUDA context is made while it is read.
bool worth_a_gpu(const std::string& data_file);

// "auto | sort | ... " per backend for `use`, and how --backend auto picks.
std::string algorithm_help(selection::Use use);
std::string backend_help();

}  // namespace robustfit::app
