#pragma once
// R peers for `robust-fit bench --peers r`: robustbase::ltsReg and MASS::lqs on the same data,
// through Rscript and bench/peers/robust_peers.R (carried by the executable).
#include <filesystem>
#include <string>
#include <vector>

#include "robustfit/data/scenarios.hpp"

namespace robustfit::app {

struct PeerFit {
  std::string estimator;  // "ltsReg (R)", "lqs (R)"
  double seconds = 0;     // R's system.time of the fit alone
  double objective = 0;
  std::vector<double> coefficients;  // intercept first
  std::vector<std::size_t> outliers;  // 0-based rows
};

class RPeers {
 public:
  // Looks for Rscript with robustbase and MASS; available() says whether they were found,
  // why_not() why not. Writes the script into a fresh temporary folder.
  RPeers();
  ~RPeers();
  RPeers(const RPeers&) = delete;
  RPeers& operator=(const RPeers&) = delete;

  bool available() const { return available_; }
  const std::string& why_not() const { return why_not_; }

  // Writes the scenario as CSV, runs the script on it and parses its lines. Throws
  // std::runtime_error with R's message when the script fails.
  std::vector<PeerFit> fit(const data::Scenario& scenario);

 private:
  std::filesystem::path folder_;
  bool available_ = false;
  std::string why_not_;
};

}  // namespace robustfit::app
