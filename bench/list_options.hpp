#pragma once
// Comma-separated list options of the benchmark programs (--types float,double, --methods ...).
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace robustfit::bench {

inline std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) parts.push_back(part);
  return parts;
}

inline bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace robustfit::bench
