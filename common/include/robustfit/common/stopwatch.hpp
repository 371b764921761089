#pragma once
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace robustfit::common {

// Seconds since construction or the last lap().
class Stopwatch {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return seconds;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Developer trace: with ROBUSTFIT_TRACE set, `trace` prints one line per call to stderr.
inline bool tracing() {
  static const bool on = std::getenv("ROBUSTFIT_TRACE") != nullptr;
  return on;
}
inline void trace(const char* what, double seconds, long long count = -1) {
  if (tracing()) std::fprintf(stderr, "trace %-28s %9.3f ms  %lld\n", what, seconds * 1e3, count);
}

}  // namespace robustfit::common
