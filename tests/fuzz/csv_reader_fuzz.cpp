// The CSV reader: any bytes -> a Table or a DataError (fuzz_harness.hpp).
#include "fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  robustfit::fuzz::csv_reader_input(robustfit::fuzz::as_text(data, size));
  return 0;
}
