#include "progress_line.hpp"

#include <cstdio>
#include <unistd.h>

namespace robustfit::app {
namespace {

constexpr std::chrono::milliseconds kDelay{1000};    // fits shorter than this stay silent
constexpr std::chrono::milliseconds kInterval{100};  // at most ten updates a second

}  // namespace

bool progress_wanted(bool quiet) { return !quiet && ::isatty(STDERR_FILENO) != 0; }

ProgressLine::ProgressLine(std::string label) : label_(std::move(label)), start_(Clock::now()) {}

ProgressLine::~ProgressLine() {
  if (shown_) {
    std::fputs("\r\033[K", stderr);  // erase the line: the results follow on stdout
    std::fflush(stderr);
  }
}

void ProgressLine::update(std::string_view phase, double fraction) {
  const Clock::time_point now = Clock::now();
  // The last report always shows once the delay is over: a fit longer than the delay is seen.
  if (now - start_ < kDelay || (shown_ && now - last_shown_ < kInterval && fraction < 1.0)) return;
  shown_ = true;
  last_shown_ = now;
  std::fprintf(stderr, "\r\033[Krobust-fit: %s: %.*s %3.0f%%", label_.c_str(), static_cast<int>(phase.size()),
               phase.data(), 100.0 * fraction);
  std::fflush(stderr);
}

regression::ProgressCallback ProgressLine::callback() {
  return [this](std::string_view phase, double fraction) { update(phase, fraction); };
}

}  // namespace robustfit::app
