#pragma once
// Locating test fixtures and bundled datasets relative to the test executable, so that the
// executables run from any directory (and from a copied build folder on the GPU machine).
#include <filesystem>
#include <string>

namespace robustfit::testing {

std::filesystem::path executable_dir();
std::filesystem::path fixture_path(const std::string& name);  // <exe dir>/fixtures/<name>
std::filesystem::path dataset_path(const std::string& name);  // <exe dir>/datasets/<name>

}  // namespace robustfit::testing
