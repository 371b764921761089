#pragma once
// Which selection algorithm runs where: the one table that the CLI (select, fit), the engines,
// the CUDA dispatch, --help and the README derive from. Changing what a backend offers means
// changing the table in capabilities.cpp (and the code behind it), nowhere else.
#include <string>
#include <string_view>
#include <vector>

#include "robustfit/selection/algorithm.hpp"
#include "robustfit/selection/backend.hpp"

namespace robustfit::selection {

// How order statistics are asked for.
enum class Use {
  single,   // one rank of one vector
  many,     // several ranks of one vector
  batched,  // one rank per column of a matrix: the LTS/LMS engines' thresholds, kNN
};

std::string_view to_string(Use use);  // "one rank", "many ranks", "batched columns"

// True when `backend` has `algorithm` for `use`. For Backend::automatic: when either has it.
bool offers(Backend backend, Use use, Algorithm algorithm);
// What `backend` (cpu or cuda) offers for `use`, in the order of algorithm_names().
std::vector<Algorithm> offered(Backend backend, Use use);
// The same as text: "auto, sort, nth-element".
std::string offered_names(Backend backend, Use use);

// The concrete backend (cpu or cuda) for a request. cpu and cuda stay as asked (whether they
// offer `algorithm` is require_offered's question); automatic picks the only backend that has
// `algorithm` for `use`, otherwise CUDA when `cuda_usable`, otherwise the CPU.
Backend resolve_backend(Backend requested, Use use, Algorithm algorithm, bool cuda_usable);

// The error text for `algorithm` not offered by `backend` for `use`: what that backend offers
// and which backend has the algorithm instead.
std::string unavailable_message(Backend backend, Use use, Algorithm algorithm);
// Throws std::invalid_argument(unavailable_message(...)) unless offers(backend, use, algorithm).
void require_offered(Backend backend, Use use, Algorithm algorithm);

// The error text for a request that resolved to CUDA where no CUDA backend is usable
// (`reason` says why): names the request that led there and what the CPU offers instead.
std::string cuda_unavailable_message(Backend requested, Use use, Algorithm algorithm, std::string_view reason);

// One line per backend, for --help: "cpu: auto, sort, nth-element; cuda: auto, sort, ...".
std::string offered_summary(Use use);
// The whole table as a Markdown table (README.md carries it verbatim; a test checks that).
std::string capability_table_markdown();

}  // namespace robustfit::selection
