// The design builder: table + options -> a Design or a clean error (fuzz_harness.hpp).
#include "fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  robustfit::fuzz::design_input(robustfit::fuzz::as_text(data, size));
  return 0;
}
