#pragma once
// CSV input split over the ranks, so that no rank reads (or holds) the whole file.
#include <filesystem>

#include "robustfit/data/csv.hpp"
#include "robustfit/distributed/communicator.hpp"

namespace robustfit::distributed {

// Collective: rank r parses part r of the file's data rows (data/csv_parts.hpp); the rows keep
// their file lines, so messages name the line in the file. A part may have no rows. A failure
// on any rank is thrown on every rank (the failing one's DataError, PeerFailure elsewhere).
data::Table read_csv_shard(Communicator& comm, const std::filesystem::path& path, const data::CsvOptions& options = {});

// Not collective: this rank's own file, a header and any number of rows (none included).
data::Table read_shard_file(const std::filesystem::path& path, const data::CsvOptions& options = {});

}  // namespace robustfit::distributed
