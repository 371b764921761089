#include "robustfit/selection/algorithm.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace robustfit::selection {
namespace {
constexpr std::array<std::pair<Algorithm, std::string_view>, 11> kNames{{
    {Algorithm::automatic, "auto"},
    {Algorithm::sort, "sort"},
    {Algorithm::cutting_plane, "cutting-plane"},
    {Algorithm::bucket, "bucket"},
    {Algorithm::radix, "radix"},
    {Algorithm::sample, "sample"},
    {Algorithm::multi, "multi"},
    {Algorithm::floyd_rivest, "floyd-rivest"},
    {Algorithm::sampled_multi, "sampled-multi"},
    {Algorithm::bracket, "bracket"},
    {Algorithm::nth_element, "nth-element"},
}};
}  // namespace

std::string_view to_string(Algorithm algorithm) {
  for (const auto& [a, name] : kNames)
    if (a == algorithm) return name;
  return "unknown";
}

Algorithm parse_algorithm(std::string_view name) {
  for (const auto& [a, known] : kNames)
    if (known == name) return a;
  std::string message = "unknown selection algorithm '";
  message.append(name).append("' (expected one of:");
  for (const auto& [a, known] : kNames) message.append(" ").append(known);
  throw std::invalid_argument(message.append(")"));
}

std::vector<std::string_view> algorithm_names() {
  std::vector<std::string_view> names;
  for (const auto& [a, name] : kNames) names.push_back(name);
  return names;
}

}  // namespace robustfit::selection
