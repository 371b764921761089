// The capability table against the cells written out by hand here (what the code behind each
// backend does, checked cell by cell: selection/src/cuda/select.cu, the CPU engine, the CLI),
// the auto-resolution rule, the error messages, and README.md carrying the generated table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "robustfit/selection/capabilities.hpp"
#include "test_paths.hpp"

namespace robustfit::selection {
namespace {

using Names = std::set<std::string>;

const Names kCpu = {"auto", "nth-element", "sort"};
const Names kCudaOneVector = {"auto", "sort", "cutting-plane", "bucket", "radix", "sample", "floyd-rivest", "multi", "sampled-multi",
                               "bracket"};
const Names kCudaBatched = {"auto", "sort", "radix", "cutting-plane", "bucket", "sample", "floyd-rivest", "bracket"};

const Names& expected_cell(Backend backend, Use use) {
  if (backend == Backend::cpu) return kCpu;
  return use == Use::batched ? kCudaBatched : kCudaOneVector;
}

constexpr Use kUses[] = {Use::single, Use::many, Use::batched};
constexpr Backend kBackends[] = {Backend::cpu, Backend::cuda};

std::string message_of(Backend backend, Use use, Algorithm algorithm) {
  try {
    require_offered(backend, use, algorithm);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Capabilities, EveryCellAsWrittenOut) {
  for (Use use : kUses)
    for (Backend backend : kBackends)
      for (std::string_view name : algorithm_names()) {
        const Algorithm algorithm = parse_algorithm(name);
        const bool expected = expected_cell(backend, use).count(std::string(name)) > 0;
        EXPECT_EQ(offers(backend, use, algorithm), expected)
            << to_string(backend) << " / " << to_string(use) << " / " << name;
        // automatic: offered when either backend has it.
        const bool either = expected_cell(Backend::cpu, use).count(std::string(name)) > 0 ||
                            expected_cell(Backend::cuda, use).count(std::string(name)) > 0;
        EXPECT_EQ(offers(Backend::automatic, use, algorithm), either) << to_string(use) << " / " << name;
      }
}

TEST(Capabilities, OfferedListsFollowTheAlgorithmNamesOrder) {
  EXPECT_EQ(offered_names(Backend::cpu, Use::single), "auto, sort, nth-element");
  EXPECT_EQ(offered_names(Backend::cuda, Use::many),
            "auto, sort, cutting-plane, bucket, radix, sample, multi, floyd-rivest, sampled-multi, bracket");
  EXPECT_EQ(offered_names(Backend::cuda, Use::batched),
            "auto, sort, cutting-plane, bucket, radix, sample, floyd-rivest, bracket");
  for (Use use : kUses)
    for (Backend backend : kBackends) {
      const auto list = offered(backend, use);
      EXPECT_EQ(list.size(), expected_cell(backend, use).size());
      for (Algorithm a : list) EXPECT_TRUE(offers(backend, use, a));
    }
  EXPECT_EQ(offered_summary(Use::batched),
            "cpu: auto, sort, nth-element; cuda: auto, sort, cutting-plane, bucket, radix, sample, floyd-rivest, bracket");
}

TEST(Capabilities, AutoPicksTheOnlyBackendThatHasTheAlgorithm) {
  for (Use use : kUses)
    for (std::string_view name : algorithm_names()) {
      const Algorithm algorithm = parse_algorithm(name);
      const bool cpu = kCpu.count(std::string(name)) > 0, cuda = expected_cell(Backend::cuda, use).count(std::string(name)) > 0;
      for (bool usable : {false, true}) {
        const Backend expected = cpu && !cuda ? Backend::cpu : cuda && !cpu ? Backend::cuda
                                                              : usable      ? Backend::cuda
                                                                            : Backend::cpu;
        EXPECT_EQ(resolve_backend(Backend::automatic, use, algorithm, usable), expected)
            << to_string(use) << " / " << name << " / cuda usable " << usable;
        // An explicit backend is never changed, offered or not.
        EXPECT_EQ(resolve_backend(Backend::cpu, use, algorithm, usable), Backend::cpu);
        EXPECT_EQ(resolve_backend(Backend::cuda, use, algorithm, usable), Backend::cuda);
      }
    }
  // The cases of the issue: nth-element on a GPU machine stays on the CPU; radix without one goes to CUDA.
  EXPECT_EQ(resolve_backend(Backend::automatic, Use::single, Algorithm::nth_element, true), Backend::cpu);
  EXPECT_EQ(resolve_backend(Backend::automatic, Use::batched, Algorithm::radix, false), Backend::cuda);
  EXPECT_EQ(resolve_backend(Backend::automatic, Use::batched, Algorithm::sort, true), Backend::cuda);
  EXPECT_EQ(resolve_backend(Backend::automatic, Use::batched, Algorithm::sort, false), Backend::cpu);
}

TEST(Capabilities, MessagesListWhatIsAvailable) {
  EXPECT_EQ(message_of(Backend::cpu, Use::single, Algorithm::nth_element), "");
  EXPECT_EQ(message_of(Backend::cpu, Use::batched, Algorithm::radix),
            "selection algorithm 'radix' is not available on the CPU backend for batched columns; the CPU backend "
            "offers auto, sort, nth-element ('radix' runs on the CUDA backend only)");
  EXPECT_EQ(message_of(Backend::cuda, Use::many, Algorithm::nth_element),
            "selection algorithm 'nth-element' is not available on the CUDA backend for many ranks; the CUDA backend "
            "offers auto, sort, cutting-plane, bucket, radix, sample, multi, floyd-rivest, sampled-multi, bracket ('nth-element' "
            "runs on the "
            "CPU backend only)");
  EXPECT_EQ(message_of(Backend::cuda, Use::batched, Algorithm::multi),
            "selection algorithm 'multi' is not available for batched columns on any backend (CPU: auto, sort, "
            "nth-element; CUDA: auto, sort, cutting-plane, bucket, radix, sample, floyd-rivest, bracket)");
  EXPECT_EQ(message_of(Backend::automatic, Use::batched, Algorithm::multi),
            message_of(Backend::cuda, Use::batched, Algorithm::multi));
  // Every refusal names the algorithm and the backend's whole list.
  for (Use use : kUses)
    for (Backend backend : kBackends)
      for (std::string_view name : algorithm_names()) {
        const std::string message = message_of(backend, use, parse_algorithm(name));
        if (expected_cell(backend, use).count(std::string(name))) continue;
        EXPECT_NE(message.find("'" + std::string(name) + "'"), std::string::npos) << message;
        EXPECT_NE(message.find(offered_names(backend, use)), std::string::npos) << message;
      }
}

TEST(Capabilities, CudaUnavailableMessages) {
  EXPECT_EQ(cuda_unavailable_message(Backend::cuda, Use::single, Algorithm::sort, "no CUDA device found"),
            "the CUDA backend was requested but is not available: no CUDA device found");
  EXPECT_EQ(cuda_unavailable_message(Backend::automatic, Use::batched, Algorithm::bucket, "no CUDA device found"),
            "selection algorithm 'bucket' runs on the CUDA backend only, which is not available: no CUDA device "
            "found (the CPU backend offers auto, sort, nth-element)");
}

TEST(Capabilities, BackendNames) {
  for (Backend b : {Backend::automatic, Backend::cpu, Backend::cuda}) EXPECT_EQ(parse_backend(to_string(b)), b);
  EXPECT_EQ(to_string(Backend::automatic), "auto");
  try {
    parse_backend("tpu");
    FAIL() << "tpu was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "unknown backend 'tpu' (expected auto, cpu or cuda)");
  }
}

// README.md shows the table as capability_table_markdown() renders it, so the two cannot drift.
TEST(Capabilities, ReadmeCarriesTheGeneratedTable) {
  std::filesystem::path dir = robustfit::testing::executable_dir();
  while (!std::filesystem::exists(dir / "README.md") && dir.has_parent_path() && dir != dir.parent_path())
    dir = dir.parent_path();
  if (!std::filesystem::exists(dir / "README.md")) GTEST_SKIP() << "README.md not found above the test executable";
  std::ifstream in(dir / "README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string table = capability_table_markdown();
  EXPECT_EQ(table,
            "| use | CPU | CUDA |\n|---|---|---|\n"
            "| one rank | `auto`, `sort`, `nth-element` | `auto`, `sort`, `cutting-plane`, `bucket`, `radix`, "
            "`sample`, `multi`, `floyd-rivest`, `sampled-multi`, `bracket` |\n"
            "| many ranks | `auto`, `sort`, `nth-element` | `auto`, `sort`, `cutting-plane`, `bucket`, `radix`, "
            "`sample`, `multi`, `floyd-rivest`, `sampled-multi`, `bracket` |\n"
            "| batched columns | `auto`, `sort`, `nth-element` | `auto`, `sort`, `cutting-plane`, `bucket`, "
            "`radix`, `sample`, `floyd-rivest`, `bracket` |\n");
  EXPECT_NE(text.str().find(table), std::string::npos) << "README.md lacks the table:\n" << table;
}

}  // namespace
}  // namespace robustfit::selection
