// robustfit_soak --problems N [--seed S] [--max-n N] [--seconds T] [--dump DIR]: N random regression problems (CPU engine
// against the CUDA engine where a device is usable; without one, the CPU fit alone must be
// defined) and N selection arrays (every algorithm against sort & choose). Problem i uses seed
// S + i; each failure prints its seed and parameters. --seconds stops after T seconds (the
// summary says how many ran: continue with --seed S + that). --dump DIR writes each failed
// regression problem's data to DIR/seed-S.csv (with --problems 1, that problem's whatever its
// verdict: to reproduce a reported seed with `robust-fit fit`). Exit status 1 when any failed.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "soak.hpp"

int main(int argc, char** argv) {
  std::uint64_t problems = 100, seed = 1, max_n = 100000, seconds_limit = 0;
  std::string dump_dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    const std::uint64_t value = std::strtoull(argv[i + 1], nullptr, 10);
    if (option == "--dump") dump_dir = argv[i + 1];
    else if (option == "--problems") problems = value;
    else if (option == "--seed") seed = value;
    else if (option == "--max-n") max_n = value;
    else if (option == "--seconds") seconds_limit = value;
    else {
      std::fprintf(stderr, "usage: robustfit_soak [--problems N] [--seed S] [--max-n N] [--seconds T] [--dump DIR]\n");
      return 2;
    }
  }
  const bool cuda = robustfit::regression::cuda_backend_available();
  std::printf("soak: %llu problems from seed %llu, n <= %llu, %s\n", static_cast<unsigned long long>(problems),
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(max_n),
              cuda ? ("CPU against CUDA on " + robustfit::selection::cuda_device_description()).c_str()
                   : "CPU only (no CUDA device)");
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t regression_failed = 0, refused = 0, selection_failed = 0, floats = 0, float_paths = 0;
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::uint64_t done = 0;
  for (std::uint64_t i = 0; i < problems; ++i, ++done) {
    if (seconds_limit > 0 && elapsed() > static_cast<double>(seconds_limit)) break;
    const auto problem = robustfit::soak::draw_problem(seed + i, max_n);
    floats += problem.precision == robustfit::regression::Precision::single_precision;
    const auto verdict = robustfit::soak::check_regression(problem, cuda);
    refused += verdict.skipped;
    float_paths += verdict.float_path;
    if (verdict.float_path) std::printf("float path %s\n  %s\n", robustfit::soak::describe(problem).c_str(), verdict.message.c_str());
    if (verdict.skipped && verdict.passed)
      std::printf("refused %s\n  %s\n", robustfit::soak::describe(problem).c_str(), verdict.refusal.c_str());
    if (!verdict.passed) {
      ++regression_failed;
      std::printf("FAILED %s\n  %s\n", robustfit::soak::describe(problem).c_str(), verdict.message.c_str());
      if (!verdict.detail.empty()) std::printf("  %s\n", verdict.detail.c_str());
    }
    if (!dump_dir.empty() && (!verdict.passed || problems == 1)) {
      std::ofstream csv(dump_dir + "/seed-" + std::to_string(problem.seed) + ".csv");
      robustfit::soak::write_csv(problem, csv);
    }
    const auto selection = robustfit::soak::check_selection(seed + i, cuda);
    if (!selection.passed) {
      ++selection_failed;
      std::printf("FAILED %s\n", selection.message.c_str());
    }
    if ((i + 1) % 100 == 0) std::fflush(stdout);
  }
  const double seconds = elapsed();
  std::printf("soak: regression %llu problems, %llu failed, %llu refused by both engines (clear errors), %llu in float (%llu of them "
              "ended at another local optimum than double); selection %llu arrays, %llu failed; %.1f s\n",
              static_cast<unsigned long long>(done), static_cast<unsigned long long>(regression_failed),
              static_cast<unsigned long long>(refused), static_cast<unsigned long long>(cuda ? floats : 0), static_cast<unsigned long long>(float_paths),
              static_cast<unsigned long long>(done), static_cast<unsigned long long>(selection_failed), seconds);
  if (done < problems)
    std::printf("soak: stopped after %.0f s (--seconds): seeds %llu to %llu ran; continue with --seed %llu\n", seconds,
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed + done - 1),
                static_cast<unsigned long long>(seed + done));
  return regression_failed + selection_failed == 0 ? 0 : 1;
}
