#include "bench_peers.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "options_util.hpp"
#include "r_peers_script.hpp"
#include "robustfit/data/csv.hpp"

namespace robustfit::app {
namespace {

std::string quote(const std::string& text) {
  std::string q = "'";
  for (const char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, separator);) items.push_back(item);
  if (!text.empty() && text.back() == separator) items.emplace_back();
  return items;
}

}  // namespace

RPeers::RPeers() {
  folder_ = std::filesystem::temp_directory_path() / ("robust-fit-peers-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder_);
  std::ofstream(folder_ / "robust_peers.R") << kRPeersScript;
  const std::string check =
      "Rscript -e 'quit(status = !all(sapply(c(\"robustbase\", \"MASS\"), requireNamespace, quietly = TRUE)))' "
      ">/dev/null 2>&1";
  if (std::system("command -v Rscript >/dev/null 2>&1") != 0) {
    why_not_ = "Rscript is not installed (R with robustbase and MASS: Debian r-cran-robustbase, r-cran-mass)";
  } else if (std::system(check.c_str()) != 0) {
    why_not_ = "R is installed but the robustbase or MASS package is missing";
  } else {
    available_ = true;
  }
}

RPeers::~RPeers() {
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

std::vector<PeerFit> RPeers::fit(const data::Scenario& s) {
  std::vector<std::string> header;
  std::vector<std::vector<double>> columns;
  for (Eigen::Index j = 0; j < s.X.cols(); ++j) {
    header.push_back(std::string("x").append(std::to_string(j + 1)));
    columns.emplace_back(s.X.col(j).data(), s.X.col(j).data() + s.X.rows());
  }
  header.push_back("y");
  columns.emplace_back(s.y.data(), s.y.data() + s.y.size());
  const auto data_file = folder_ / "data.csv", out = folder_ / "out.txt", err = folder_ / "err.txt";
  data::write_csv(data_file, header, columns);
  const std::string command = "Rscript " + quote((folder_ / "robust_peers.R").string()) + " " +
                              quote(data_file.string()) + " >" + quote(out.string()) + " 2>" + quote(err.string());
  if (std::system(command.c_str()) != 0)
    throw std::runtime_error("--peers r: the R script failed: " + slurp(err));
  std::vector<PeerFit> fits;
  std::stringstream lines(slurp(out));
  for (std::string line; std::getline(lines, line);) {
    const auto fields = split(line, ',');
    if (fields.size() != 5) throw std::runtime_error("--peers r: unexpected line from R: '" + line + "'");
    PeerFit f;
    f.estimator = fields[0] + " (R)";
    f.seconds = std::stod(fields[1]);
    f.objective = std::stod(fields[2]);
    for (const auto& c : split(fields[3], ';')) f.coefficients.push_back(std::stod(c));
    if (!fields[4].empty())
      for (const auto& r : split(fields[4], ';')) f.outliers.push_back(std::stoul(r) - 1);
    fits.push_back(std::move(f));
  }
  return fits;
}

}  // namespace robustfit::app
