// Every input a fuzz target once failed on (tests/fuzz/regressions/<target>/*, copied beside
// this executable as fuzz_regressions/), replayed through the same harness the target uses.
// The debug preset runs this under ASan + UBSan, which is where memory errors and undefined
// behaviour show; every build checks that the input ends in a clean error or a valid result.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "test_paths.hpp"
#include "tests/fuzz/fuzz_harness.hpp"

namespace robustfit::testing {
namespace {

namespace fs = std::filesystem;

void replay(const std::string& target, const std::string& bytes) {
  if (target == "csv_reader_fuzz") return fuzz::csv_reader_input(bytes);
  if (target == "design_fuzz") return fuzz::design_input(bytes);
  if (target == "fit_arguments_fuzz") return fuzz::command_line_input(bytes, app::parse_fit_arguments);
  if (target == "select_arguments_fuzz") return fuzz::command_line_input(bytes, app::parse_select_arguments);
  if (target == "generate_arguments_fuzz") return fuzz::command_line_input(bytes, app::parse_generate_arguments);
  if (target == "bench_arguments_fuzz") return fuzz::command_line_input(bytes, app::parse_bench_arguments);
  if (target == "knn_arguments_fuzz") return fuzz::command_line_input(bytes, app::parse_knn_arguments);
  if (target == "mcd_arguments_fuzz") return fuzz::command_line_input(bytes, app::parse_mcd_arguments);
  FAIL() << "no harness for fuzz target '" << target << "' (add it to replay())";
}

TEST(FuzzRegressions, EveryStoredInputEndsCleanly) {
  const fs::path root = executable_dir() / "fuzz_regressions";
  ASSERT_TRUE(fs::is_directory(root)) << root;
  std::size_t count = 0;
  for (const auto& folder : fs::directory_iterator(root)) {
    if (!folder.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(folder.path())) {
      std::ifstream in(file.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_NO_THROW(replay(folder.path().filename().string(), bytes)) << file.path();
      ++count;
    }
  }
  EXPECT_GE(count, 1U);
}

// The design_fuzz finding itself: no predictors and no intercept is refused before any
// arithmetic on the n x 0 matrix (it was Eigen UB in the Gram update).
TEST(FuzzRegressions, ModelWithoutCoefficientsIsRefusedFirst) {
  const Eigen::MatrixXd none(5, 0);
  const Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(5, 1, 5);
  try {
    regression::check_design(none, y, false);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no coefficients"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace robustfit::testing
