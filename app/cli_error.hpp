#pragma once
// The CLI's error kinds and exit codes: usage errors exit 2, data and fit errors exit 1.
// Both print "robust-fit: error: <what and where>" on stderr.
#include <stdexcept>

namespace robustfit::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDataError = 1;
inline constexpr int kExitUsageError = 2;

// A bad command line: unknown option, missing argument, value out of its allowed range.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace robustfit::app
