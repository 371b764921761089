// robust-fit bench: argv -> parsed options or a UsageError.
#include "command_line_fuzz.hpp"

ROBUSTFIT_COMMAND_LINE_FUZZ_TARGET(parse_bench_arguments)
