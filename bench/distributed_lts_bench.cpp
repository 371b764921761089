// Strong and weak scaling of LTS across MPI ranks (fit_lts_distributed; docs/DISTRIBUTED.md):
// each rank generates its own block of a contaminated regression data set in memory - row i of
// the set from a generator seeded by (seed, i), so every rank count fits the same data and no
// rank holds another's rows - then the ranks fit it `--runs` times (after a barrier each; the
// wall clock of rank 0 from the barrier to the end of a fit, FAST-MCD off). One CSV row per run
// configuration on stdout (and appended to --out): ranks, n, p, the time (median, min, max),
// the search's and the finish's shares, the objective, the outliers flagged and the planted
// ones found, rank 0's bytes handed to collectives.
//   mpirun -np 4 bench_distributed_lts --per-rank 1e7 --p 10 --backend cuda   (weak scaling)
//   mpirun -np 2 bench_distributed_lts --n 1e7 --p 10 --backend cuda          (strong scaling)
// Model: y = 1 + sum_j x_j + N(0, 1), x ~ N(0, I_p); a fraction --eps of the rows (by a hash of
// the row) has y shifted up by U(10, 100) (the vertical outliers of bench_lts).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "mpi/distributed_fit.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/distributed/cuda_local_shard.hpp"
#include "robustfit/distributed/mpi_session.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/selection/gpu.hpp"

namespace rd = robustfit::distributed;
namespace rr = robustfit::regression;

namespace {

struct Options {
  std::uint64_t n = 0, per_rank = 0;  // one of them: the whole set, or rows per rank
  std::size_t p = 10;
  double eps = 0.2;
  std::size_t subsets = 500;  // 0: the default search
  std::string backend = "cuda", out, commit = "unknown";
  int runs = 3;
  std::uint64_t seed = 1;
};

int usage() {
  std::cerr << "usage: mpirun -np Q bench_distributed_lts (--n N | --per-rank N) [--p 10] [--eps 0.2] [--subsets 500 (0: default search)]\n"
               "                     [--backend cuda|cpu|auto] [--runs 3] [--seed 1] [--out FILE.csv] [--commit SHA]\n";
  return 2;
}

// Row `row` of the set: its p predictors into x, its y returned; `planted` says whether it is
// an outlier. The same numbers for a row whatever the rank count.
double make_row(std::uint64_t seed, std::uint64_t row, std::size_t p, double eps, double* x, bool& planted) {
  robustfit::common::Random random(seed * 0x9E3779B97F4A7C15ull ^ (row + 1) * 0xD1B54A32D192ED03ull);
  double y = 1;
  for (std::size_t j = 0; j < p; ++j) {
    x[j] = random.normal();
    y += x[j];
  }
  y += random.normal();
  planted = random.uniform() < eps;
  if (planted) y += random.uniform(10, 100);
  return y;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::ostringstream command;
  for (int i = 0; i < argc; ++i) command << (i ? " " : "") << argv[i];
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string value = argv[i + 1];
    if (key == "--n") o.n = static_cast<std::uint64_t>(std::stod(value));
    else if (key == "--per-rank") o.per_rank = static_cast<std::uint64_t>(std::stod(value));
    else if (key == "--p") o.p = static_cast<std::size_t>(std::stoul(value));
    else if (key == "--eps") o.eps = std::stod(value);
    else if (key == "--subsets") o.subsets = static_cast<std::size_t>(std::stod(value));
    else if (key == "--backend") o.backend = value;
    else if (key == "--runs") o.runs = std::stoi(value);
    else if (key == "--seed") o.seed = std::stoull(value);
    else if (key == "--out") o.out = value;
    else if (key == "--commit") o.commit = value;
    else return usage();
  }
  if ((o.n == 0) == (o.per_rank == 0)) return usage();
  rd::MpiSession session(argc, argv);
  rd::Communicator comm;
  const int rank = comm.rank(), ranks = comm.size();
  rr::LtsOptions options;
  options.backend = rr::parse_backend(o.backend);
  options.mcd = false;
  options.seed = o.seed;
  if (o.subsets > 0) options.subsets = o.subsets;
  if (options.backend != rr::Backend::cpu) rd::bind_gpu_to_local_rank(comm);

  const std::uint64_t total = o.n > 0 ? o.n : o.per_rank * static_cast<std::uint64_t>(ranks);
  const std::uint64_t first = total * static_cast<std::uint64_t>(rank) / static_cast<std::uint64_t>(ranks);
  const std::uint64_t last = total * static_cast<std::uint64_t>(rank + 1) / static_cast<std::uint64_t>(ranks);
  const auto rows = static_cast<Eigen::Index>(last - first);
  Eigen::MatrixXd X(rows, static_cast<Eigen::Index>(o.p));
  Eigen::VectorXd y(rows);
  std::vector<char> planted(static_cast<std::size_t>(rows));
  {
    std::vector<double> x(o.p);
    for (Eigen::Index i = 0; i < rows; ++i) {
      bool outlier = false;
      y(i) = make_row(o.seed, first + static_cast<std::uint64_t>(i), o.p, o.eps, x.data(), outlier);
      for (std::size_t j = 0; j < o.p; ++j) X(i, static_cast<Eigen::Index>(j)) = x[j];
      planted[static_cast<std::size_t>(i)] = outlier;
    }
  }

  std::vector<double> times;
  rr::FitResult fit;
  std::uint64_t bytes = 0;
  for (int r = 0; r < o.runs; ++r) {
    MPI_Barrier(comm.handle());
    const std::uint64_t bytes_before = comm.bytes();
    const auto start = std::chrono::steady_clock::now();
    fit = rr::fit_lts_distributed(comm, X, y, options);
    MPI_Barrier(comm.handle());
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    bytes = comm.bytes() - bytes_before;
  }
  std::uint64_t counts[3] = {0, 0, 0};  // flagged, planted, flagged and planted
  for (std::size_t i = 0; i < planted.size(); ++i) {
    counts[0] += fit.outlier[i];
    counts[1] += static_cast<std::uint64_t>(planted[i]);
    counts[2] += fit.outlier[i] && planted[i];
  }
  comm.all_reduce_sum(std::span<std::uint64_t>(counts, 3));
  if (rank != 0) return 0;
  std::sort(times.begin(), times.end());
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const std::string header =
      "date,device,commit,ranks,n,n_rank0,p,eps,backend,subsets,runs,median_s,min_s,max_s,search_s,finish_s,objective,"
      "flagged,planted,planted_flagged,bytes_rank0,command";
  std::ostringstream row;
  row << date << ",\"" << (fit.backend == "mpi+cuda" ? robustfit::selection::cuda_device_description() : std::string("cpu"))
      << "\"," << o.commit << ',' << ranks << ',' << total << ',' << rows << ',' << o.p << ',' << o.eps << ',' << fit.backend
      << ',' << fit.subsets_tried << ',' << o.runs << ',' << times[times.size() / 2] << ',' << times.front() << ','
      << times.back() << ',' << fit.timings.subsets_s + fit.timings.objectives_s + fit.timings.csteps_s << ','
      << fit.timings.finish_s << ',';
  char objective[40];
  std::snprintf(objective, sizeof objective, "%.12g", fit.objective);
  row << objective << ',' << counts[0] << ',' << counts[1] << ',' << counts[2] << ',' << bytes << ",\"" << command.str() << "\"";
  std::cout << header << '\n' << row.str() << std::endl;
  if (!o.out.empty()) {
    const bool fresh = !std::ifstream(o.out).good();
    std::ofstream file(o.out, std::ios::app);
    if (fresh) file << header << '\n';
    file << row.str() << '\n';
  }
  return 0;
}
