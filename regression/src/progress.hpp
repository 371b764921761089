#pragma once
// Private: progress reports to the optional callback of the options (options.hpp). The drivers
// call report() between batches of engine work, never from inside a kernel; fractions are
// kept in [0, 1] and never decrease, whatever the stage estimates say.
#include <algorithm>
#include <string_view>

#include "robustfit/regression/options.hpp"

namespace robustfit::regression::detail {

class Progress {
 public:
  Progress() = default;
  explicit Progress(const ProgressCallback& callback) : callback_(callback ? &callback : nullptr) {}

  void report(std::string_view phase, double fraction) {
    if (callback_ == nullptr) return;
    last_ = std::clamp(fraction, last_, 1.0);
    (*callback_)(phase, last_);
  }

 private:
  const ProgressCallback* callback_ = nullptr;
  double last_ = 0;
};

}  // namespace robustfit::regression::detail
