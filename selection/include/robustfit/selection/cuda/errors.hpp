#pragma once
// Exceptions thrown by the CUDA selection module.
#include <new>
#include <string>

namespace robustfit::selection::cuda {

// A device or pinned-host allocation failed. Derives from std::bad_alloc so generic
// out-of-memory handlers catch it; what() says how much was asked for and why it failed.
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

}  // namespace robustfit::selection::cuda
