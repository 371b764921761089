#include "robustfit/selection/capabilities.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

namespace robustfit::selection {
namespace {

using A = Algorithm;

// The table. CPU: std::nth_element or a full sort, for every use (the CLI's select, the CPU
// regression engine's per-candidate selections). CUDA: selection/src/cuda/select.cu's dispatch;
// batched columns run sort, radix and bracket as one batched pass and the single-vector algorithms (cutting plane,
// bucket, sample, Floyd–Rivest) one column at a time; bucketMultiSelect and sampled multiselection have no batched form
// (many ranks with bracket: one bracket selection per rank).
constexpr A kCpu[] = {A::automatic, A::sort, A::nth_element};
constexpr A kCudaOneVector[] = {A::automatic, A::sort,  A::cutting_plane, A::bucket,        A::radix,  A::sample,
                                A::multi,     A::floyd_rivest, A::sampled_multi, A::bracket};
constexpr A kCudaBatched[] = {A::automatic, A::sort,   A::cutting_plane, A::bucket,
                              A::radix,     A::sample, A::floyd_rivest,  A::bracket};

constexpr Use kUses[] = {Use::single, Use::many, Use::batched};
constexpr Backend kConcrete[] = {Backend::cpu, Backend::cuda};

std::span<const A> cell(Backend backend, Use use) {
  switch (backend) {
    case Backend::cpu: return kCpu;
    case Backend::cuda: return use == Use::batched ? std::span<const A>(kCudaBatched) : std::span<const A>(kCudaOneVector);
    case Backend::automatic: break;
  }
  throw std::logic_error("capabilities: no table cell for backend 'auto'");
}

bool in_cell(Backend backend, Use use, Algorithm algorithm) {
  const auto algorithms = cell(backend, use);
  return std::find(algorithms.begin(), algorithms.end(), algorithm) != algorithms.end();
}

std::string_view backend_title(Backend backend) { return backend == Backend::cuda ? "CUDA" : "CPU"; }

std::string joined(Backend backend, Use use, std::string_view quote) {
  std::string text;
  for (Algorithm a : offered(backend, use)) {
    if (!text.empty()) text += ", ";
    text.append(quote).append(to_string(a)).append(quote);
  }
  return text;
}

}  // namespace

std::string_view to_string(Use use) {
  switch (use) {
    case Use::single: return "one rank";
    case Use::many: return "many ranks";
    case Use::batched: return "batched columns";
  }
  return "unknown";
}

bool offers(Backend backend, Use use, Algorithm algorithm) {
  if (backend == Backend::automatic)
    return in_cell(Backend::cpu, use, algorithm) || in_cell(Backend::cuda, use, algorithm);
  return in_cell(backend, use, algorithm);
}

std::vector<Algorithm> offered(Backend backend, Use use) {
  // In the order of algorithm_names(), whatever the order of the cell.
  std::vector<Algorithm> result;
  for (std::string_view name : algorithm_names()) {
    const Algorithm a = parse_algorithm(name);
    if (in_cell(backend, use, a)) result.push_back(a);
  }
  return result;
}

std::string offered_names(Backend backend, Use use) { return joined(backend, use, ""); }

Backend resolve_backend(Backend requested, Use use, Algorithm algorithm, bool cuda_usable) {
  if (requested != Backend::automatic) return requested;
  const bool cpu = in_cell(Backend::cpu, use, algorithm), cuda = in_cell(Backend::cuda, use, algorithm);
  if (cpu != cuda) return cuda ? Backend::cuda : Backend::cpu;
  return cuda_usable ? Backend::cuda : Backend::cpu;
}

std::string unavailable_message(Backend backend, Use use, Algorithm algorithm) {
  const std::string name = "'" + std::string(to_string(algorithm)) + "'";
  std::vector<Backend> having;
  for (Backend b : kConcrete)
    if (in_cell(b, use, algorithm)) having.push_back(b);
  if (having.empty() || backend == Backend::automatic) {
    std::string message = "selection algorithm " + name + " is not available for " + std::string(to_string(use)) +
                          " on any backend (";
    for (Backend b : kConcrete)
      message.append(b == Backend::cpu ? "" : "; ").append(backend_title(b)).append(": ").append(offered_names(b, use));
    return message + ")";
  }
  return "selection algorithm " + name + " is not available on the " + std::string(backend_title(backend)) +
         " backend for " + std::string(to_string(use)) + "; the " + std::string(backend_title(backend)) +
         " backend offers " + offered_names(backend, use) + " (" + name + " runs on the " +
         std::string(backend_title(having.front())) + " backend only)";
}

void require_offered(Backend backend, Use use, Algorithm algorithm) {
  if (!offers(backend, use, algorithm)) throw std::invalid_argument(unavailable_message(backend, use, algorithm));
}

std::string cuda_unavailable_message(Backend requested, Use use, Algorithm algorithm, std::string_view reason) {
  if (requested == Backend::automatic && !in_cell(Backend::cpu, use, algorithm))
    return "selection algorithm '" + std::string(to_string(algorithm)) +
           "' runs on the CUDA backend only, which is not available: " + std::string(reason) +
           " (the CPU backend offers " + offered_names(Backend::cpu, use) + ")";
  return "the CUDA backend was requested but is not available: " + std::string(reason);
}

std::string offered_summary(Use use) {
  return "cpu: " + offered_names(Backend::cpu, use) + "; cuda: " + offered_names(Backend::cuda, use);
}

std::string capability_table_markdown() {
  std::string table = "| use | CPU | CUDA |\n|---|---|---|\n";
  for (Use use : kUses)
    table.append("| ")
        .append(to_string(use))
        .append(" | ")
        .append(joined(Backend::cpu, use, "`"))
        .append(" | ")
        .append(joined(Backend::cuda, use, "`"))
        .append(" |\n");
  return table;
}

}  // namespace robustfit::selection
