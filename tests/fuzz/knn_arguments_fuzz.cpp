// robust-fit knn: argv -> parsed options or a UsageError.
#include "command_line_fuzz.hpp"

ROBUSTFIT_COMMAND_LINE_FUZZ_TARGET(parse_knn_arguments)
