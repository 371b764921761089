#include "robustfit/distributed/sharded_csv.hpp"

#include <memory>

#include "robustfit/data/csv_parts.hpp"

namespace robustfit::distributed {

data::Table read_csv_shard(Communicator& comm, const std::filesystem::path& path, const data::CsvOptions& options) {
  const auto part = comm.agree([&] {
    return std::make_unique<data::CsvPart>(path, static_cast<std::size_t>(comm.rank()),
                                           static_cast<std::size_t>(comm.size()), options);
  });
  part->cut(comm.exclusive_sum(part->quotes()));
  const std::uint64_t lines_before = comm.exclusive_sum(part->line_ends());
  return comm.agree([&] { return part->read(lines_before); });
}

data::Table read_shard_file(const std::filesystem::path& path, const data::CsvOptions& options) {
  return data::CsvPart(path, 0, 1, options).read(0);
}

}  // namespace robustfit::distributed
