// robust-fit generate: a contaminated regression scenario or a selection distribution as CSV,
// streamed (constant memory), byte-identical for the same arguments on every machine.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

#include "cli_error.hpp"
#include "commands.hpp"
#include "options_util.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/scenario_writer.hpp"
#include "scenario_options.hpp"

namespace po = boost::program_options;

namespace robustfit::app {
namespace {

constexpr const char* kGenerateHelp = R"(Usage: robust-fit generate --scenario NAME --n N [--p P] [--contamination EPS] [options]

Writes outlier-contaminated regression data (columns x1..xp, y) or a selection input (one column
x) as CSV, row by row: any n in constant memory. The same arguments give a byte-identical file
on every machine (numbers in their shortest round-trip form, no locale). docs/BENCHMARKS.md
describes the scenarios and their parameters.

Model: y = b0 + b1 x1 + ... + bp xp + sigma e, x ~ N(0, I), e ~ N(0, 1), b = (1, ..., 1).
Exactly round(EPS n) rows, chosen at random, are contaminated:
  clean          none (EPS must be 0)
  vertical       y += U(10, 100)                                  (--shift MIN,MAX)
  bad-leverage   x1 ~ N(10, 0.5^2), y = model - 20 + N(0, 0.5^2)   (--leverage-*)
  good-leverage  x1 = +-U(10, 20), y on the model; not outliers    (--good-leverage MIN,MAX)
  heavy-tails    errors standard Cauchy (or Student t, --df) times sigma
  mixed          floor(m/2) rows bad leverage, the rest vertical
  selection:NAME one column of a selection distribution: uniform, normal, half_normal, beta_2_5,
                 cauchy, mixture_normal_66_33, mixture_normal_50_50, half_normal_10pct_ten,
                 half_normal_wide_66_33, half_normal_wide_50_50, few_huge, distinct_d
                 (--distinct D), all_equal, two_values_95, sorted, reverse_sorted, bucket_killer,
                 near_zero_doubles, signed_zeros_and_infs
For one (n, p, seed) the clean rows are the same for every EPS and scenario, and for one EPS
the same rows are contaminated by every scenario.

--truth FILE.json records {"scenario", "n", "p", "contamination", "seed", "coefficients",
"parameters", "outliers"}: outliers are 1-based data rows (row 1 follows the header).

Options)";

struct GenerateArguments {
  std::string scenario, n, p = "2", contamination, seed = "1", output, truth, distinct = "16";
  ScenarioParameterText parameters;
};

po::options_description generate_options(GenerateArguments& a) {
  po::options_description options(kGenerateHelp);
  options.add_options()
    ("help", "show this help")
    ("scenario,s", po::value(&a.scenario), "scenario name (required; see above)")
    ("n", po::value(&a.n), "number of rows (required; 1e8 style allowed)")
    ("p", po::value(&a.p), "number of predictors x1..xp (default 2; p < n)")
    ("contamination,e", po::value(&a.contamination), "contaminated fraction EPS in [0, 0.5) (required but for clean)")
    ("seed", po::value(&a.seed), "seed (default 1)")
    ("output,o", po::value(&a.output), "CSV file to write (default: standard output)")
    ("truth", po::value(&a.truth), "JSON file for the true coefficients and the planted outlier rows")
    ("distinct", po::value(&a.distinct), "selection:distinct_d: the number of distinct values (default 16)");
  add_scenario_parameter_options(options, a.parameters);
  return options;
}

struct FileCloser {
  void operator()(std::FILE* file) const {
    if (file != nullptr && file != stdout) std::fclose(file);
  }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_for_writing(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw data::DataError("cannot write '" + path + "': " + std::strerror(errno));
  return File(file);
}

}  // namespace

int run_generate(const std::vector<std::string>& args, Stage stage) {
  GenerateArguments a;
  const po::options_description options = generate_options(a);
  const po::variables_map vm = parse_command_line(args, options, "generate");
  if (vm.count("help")) {
    if (stage == Stage::run) std::cout << options << "\n";
    return kExitOk;
  }
  if (vm.count("data")) throw UsageError("generate: unexpected argument '" + vm["data"].as<std::string>() + "'");
  if (a.scenario.empty()) throw UsageError("generate: --scenario is required (" + scenario_names_help() + ")");
  if (a.n.empty()) throw UsageError("generate: --n is required (the number of rows)");
  const ScenarioChoice choice = parse_scenario(a.scenario);
  const std::uint64_t n = parse_count("n", a.n, 1);
  const std::uint64_t seed = parse_count("seed", a.seed);

  if (choice.selection) {
    for (const char* option : {"contamination", "truth", "beta", "sigma", "shift", "leverage-x", "leverage-spread",
                               "leverage-offset", "leverage-y-spread", "good-leverage", "df"})
      if (vm.count(option)) throw UsageError("--" + std::string(option) + " applies to regression scenarios, not " + choice.name);
    const std::uint64_t distinct = parse_count("distinct", a.distinct, 1);
    if (stage == Stage::parse) return kExitOk;
    File out = a.output.empty() ? File(stdout) : open_for_writing(a.output);
    try {
      data::write_distribution_csv(choice.distribution, n, seed, distinct, "x", out.get());
    } catch (const std::runtime_error& e) {
      throw data::DataError("cannot write '" + (a.output.empty() ? std::string("standard output") : a.output) + "': " + e.what());
    }
    return kExitOk;
  }

  data::ScenarioSpec spec;
  spec.n = n;
  spec.q = parse_count("p", a.p);
  if (spec.q >= n)
    throw UsageError("--p: " + a.p + " predictors need more rows than that: p must be less than n = " + a.n);
  spec.contamination = choice.contamination;
  spec.seed = seed;
  if (a.contamination.empty() && choice.contamination != data::Contamination::none)
    throw UsageError("generate: --contamination is required for scenario " + choice.name + " (a fraction in [0, 0.5))");
  spec.epsilon = a.contamination.empty() ? 0.0 : parse_fraction("contamination", a.contamination);
  if (choice.contamination == data::Contamination::none && spec.epsilon != 0.0)
    throw UsageError("--contamination: scenario clean has no contamination; give 0 or leave it out");
  apply_scenario_parameters(a.parameters, spec);
  try {
    data::validate(spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("generate: ") + e.what());
  }
  if (stage == Stage::parse) return kExitOk;

  File out = a.output.empty() ? File(stdout) : open_for_writing(a.output);
  File truth = a.truth.empty() ? File() : open_for_writing(a.truth);
  try {
    data::write_scenario_csv(spec, choice.name, out.get(), truth.get());
  } catch (const std::runtime_error& e) {
    throw data::DataError("cannot write '" + (a.output.empty() ? std::string("standard output") : a.output) +
                          (a.truth.empty() ? std::string() : "' or '" + a.truth) + "': " + e.what());
  }
  return kExitOk;
}

}  // namespace robustfit::app
