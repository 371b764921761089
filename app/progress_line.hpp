#pragma once
// A progress line on stderr for long fits: "robust-fit: LTS: C-steps 73%", rewritten in place
// at most ten times a second, first shown once the fit has run for a second (short fits print
// nothing), cleared when the fit ends. The caller makes one only when stderr is a terminal and
// --quiet is not given (progress_wanted).
#include <chrono>
#include <string>
#include <string_view>

#include "robustfit/regression/options.hpp"

namespace robustfit::app {

// stderr is a terminal and the user did not ask for quiet.
bool progress_wanted(bool quiet);

class ProgressLine {
 public:
  explicit ProgressLine(std::string label);  // "LTS", "LMS", "MCD"
  ~ProgressLine();                           // clears the line if one was shown
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(std::string_view phase, double fraction);
  // A callback for the options, bound to this line (which must outlive the fit).
  regression::ProgressCallback callback();

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  Clock::time_point start_, last_shown_;
  bool shown_ = false;
};

}  // namespace robustfit::app
