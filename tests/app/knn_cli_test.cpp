// robust-fit knn end to end: outputs against hand-computed neighbours, every bad-input case.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {
namespace {

// x: 0 1 3 6 ; y: 10 20 40 80 ; labels a b b a
const std::string kTrain = "x,y,label\n0,10,a\n1,20,b\n3,40,b\n6,80,a\n";

CliRun knn(std::vector<std::string> extra) {
  std::vector<std::string> args = {"knn", "--backend", "cpu"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args);
}

TEST(KnnCli, JsonPredictionsAndNeighbors) {
  const auto train = temp_file("train.csv", kTrain), query = temp_file("query.csv", "x\n1.5\n3\n");
  auto run = knn({"--train", train, "--query", query, "--response", "y", "--predictors", "x", "--k", "2", "--neighbors", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["k"], 2);
  EXPECT_EQ(j["mode"], "regression");
  EXPECT_EQ(j["metric"], "euclidean");
  EXPECT_EQ(j["weights"], "uniform");
  EXPECT_EQ(j["n_train"], 4);
  EXPECT_EQ(j["n_query"], 2);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["precision"], "double");
  EXPECT_EQ(j["predictions"][0].get<double>(), 15);  // rows 2 (0.5) and 1 (1.5; row 3 ties at 1.5)
  EXPECT_EQ(j["neighbors"][0], nlohmann::json({2, 1}));
  EXPECT_EQ(j["distances"][0], nlohmann::json({0.5, 1.5}));
  EXPECT_EQ(j["predictions"][1].get<double>(), 30);  // rows 3 (0) and 2 (2)
}

TEST(KnnCli, ClassificationTextLabelsCsvAndTable) {
  const auto train = temp_file("train.csv", kTrain), query = temp_file("query.csv", "x,other\n0.4,zz\n5,zz\n");
  auto run = knn({"--train", train, "--query", query, "--response", "label", "--predictors", "x", "--k", "1",
                  "--mode", "classification", "--neighbors", "-o", "csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "row,prediction,neighbor_1,distance_1\n1,a,1,0.4\n2,a,4,1\n");
  run = knn({"--train", train, "--query", query, "--response", "label", "-x", "x", "--k", "2", "--mode", "classification"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "1  a\n")) << run.out;  // tied vote a/b: the nearest (row 1) is a
}

TEST(KnnCli, LeaveOneOut) {
  const auto train = temp_file("train.csv", kTrain);
  auto run = knn({"--train", train, "--response", "y", "-x", "x", "--k", "1,2", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  // k = 1: 0->1 (20), 1->0 (10), 3->1 (20), 6->3 (40): errors 10, 10, 20, 40.
  EXPECT_DOUBLE_EQ(j["loo"][0]["error"].get<double>(), std::sqrt((100 + 100 + 400 + 1600) / 4.0));
  EXPECT_EQ(j["loo"][1]["k"], 2);
  EXPECT_EQ(j["best_k"], 1);
  run = knn({"--train", train, "--response", "y", "-x", "x", "--k", "1,2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "best k = 1"));
}

TEST(KnnCli, HelpExplainsTiesWeightsStandardize) {
  const auto run = run_cli({"knn", "--help"});
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_TRUE(contains(run.out, "Ties:"));
  EXPECT_TRUE(contains(run.out, "distance 0"));
  EXPECT_TRUE(contains(run.out, "Off by default, as scikit-learn"));
  EXPECT_TRUE(contains(run.out, "manhattan"));
}

struct BadCase {
  std::vector<std::string> args;
  int exit_code;
  std::string message;
};

TEST(KnnCli, BadInputIsNamed) {
  const auto train = temp_file("train.csv", kTrain);
  const auto query = temp_file("query.csv", "x\n1\n");
  const auto wrong = temp_file("wrong.csv", "z\n1\n");
  const auto empty = temp_file("empty.csv", "x\n");
  const auto nan_query = temp_file("nan.csv", "x\nNaN\n");
  const auto inf_train = temp_file("inf.csv", "x,y\n1,2\ninf,3\n");
  const auto text_feature = temp_file("text.csv", "x,y\n1,2\nabc,3\n");
  const std::vector<BadCase> cases = {
      {{"--train", train, "--query", wrong, "--response", "y", "-x", "x", "--k", "1"}, 1, "no column 'x'"},
      {{"--train", train, "--query", query, "--response", "y", "-x", "x", "--k", "0"}, 2, "--k: '0' is not an integer >= 1"},
      {{"--train", train, "--query", query, "--response", "y", "-x", "x", "--k", "5"}, 1, "n = 4"},
      {{"--train", train, "--response", "y", "-x", "x", "--k", "4"}, 1, "n - 1 = 3"},
      {{"--train", text_feature, "--query", query, "--response", "y", "--k", "1"}, 1, "'abc' is not a number"},
      {{"--train", train, "--query", query, "--response", "label", "-x", "x", "--k", "1"}, 1, "text label 'a' with --mode regression"},
      {{"--train", train, "--query", nan_query, "--response", "y", "-x", "x", "--k", "1"}, 1, "not finite"},
      {{"--train", inf_train, "--query", query, "--response", "y", "--k", "1"}, 1, "not finite"},
      {{"--train", train, "--query", empty, "--response", "y", "-x", "x", "--k", "1"}, 1, "empty.csv"},
      {{"--train", train, "--query", query, "--response", "y", "-x", "x", "--k", "1,2"}, 2, "give one k"},
      {{"--train", train, "--query", query, "--response", "y", "-x", "x", "--k", "1", "--metric", "cosine"}, 2, "--metric"},
      {{"--train", train, "--query", query, "--response", "y", "-x", "x", "--k", "1", "--precision", "float"}, 2, "--precision float"},
      {{"--train", train, "--query", query, "-x", "x", "--k", "1"}, 2, "--response is required"},
      {{"--query", query, "--response", "y", "--k", "1"}, 2, "--train is required"},
      {{"--train", train, "--query", query, "--response", "y", "-x", "x", "--k", "x1"}, 2, "--k: 'x1' is not an integer >= 1"},
  };
  for (const auto& c : cases) {
    const auto run = knn(c.args);
    EXPECT_EQ(run.exit_code, c.exit_code) << c.message << ": " << run.err;
    EXPECT_TRUE(contains(run.err, "robust-fit: error: ")) << run.err;
    EXPECT_TRUE(contains(run.err, c.message)) << c.message << " not in: " << run.err;
  }
}

TEST(KnnCli, DropMissingDropsQueryRowsAndKeepsRowNumbers) {
  const auto train = temp_file("train.csv", kTrain), query = temp_file("query.csv", "x\nNA\n2.9\n");
  auto run = knn({"--train", train, "--query", query, "--response", "y", "-x", "x", "--k", "1", "-o", "csv", "--drop-missing"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "row,prediction\n2,40\n");
}

}  // namespace
}  // namespace robustfit::testing
