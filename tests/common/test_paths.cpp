#include "test_paths.hpp"

#include <stdexcept>

namespace robustfit::testing {

std::filesystem::path executable_dir() {
  return std::filesystem::canonical("/proc/self/exe").parent_path();
}

static std::filesystem::path existing(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path))
    throw std::runtime_error("test data not found: " + path.string());
  return path;
}

std::filesystem::path fixture_path(const std::string& name) {
  return existing(executable_dir() / "fixtures" / name);
}

std::filesystem::path dataset_path(const std::string& name) {
  return existing(executable_dir() / "datasets" / name);
}

}  // namespace robustfit::testing
