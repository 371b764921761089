// CSV shards under mpirun: the ranks' rows, in rank order, are the rows of read_csv with the
// same file lines; a bad line in one rank's part fails that rank with the file line and every
// other rank with PeerFailure, so nobody waits; --shard-files style reading of one file per rank.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "robustfit/data/csv.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/distributed/order_key.hpp"
#include "robustfit/distributed/sharded_csv.hpp"

namespace rd = robustfit::distributed;

namespace {

std::filesystem::path shared_file(rd::Communicator& comm, const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("robustfit_sharded_" + std::to_string(comm.size()) + "_" + name);
  if (comm.rank() == 0) std::ofstream(path, std::ios::binary) << text;
  MPI_Barrier(comm.handle());
  return path;
}

TEST(ShardedCsv, RanksHoldTheFileRowsInOrder) {
  rd::Communicator comm;
  std::string text = "x,label,y\n";
  for (int i = 0; i < 997; ++i)
    text += std::to_string(i) + (i % 13 == 0 ? ",\"two\nlines\"," : ",plain,") + std::to_string(i * 0.5) + "\n";
  const auto path = shared_file(comm, "rows.csv", text);
  const robustfit::data::Table whole = robustfit::data::read_csv(path);
  const robustfit::data::Table mine = rd::read_csv_shard(comm, path);
  std::vector<std::uint64_t> local;
  for (std::size_t r = 0; r < mine.rows(); ++r) {
    local.push_back(mine.lines[r]);
    local.push_back(rd::order_key(mine.columns[2].values[r]));
  }
  const std::vector<std::uint64_t> all = comm.all_gather(local);
  ASSERT_EQ(all.size(), 2 * whole.rows());
  for (std::size_t r = 0; r < whole.rows(); ++r) {
    EXPECT_EQ(all[2 * r], whole.lines[r]);
    EXPECT_EQ(rd::from_order_key(all[2 * r + 1]), whole.columns[2].values[r]);
  }
}

TEST(ShardedCsv, ABadLineFailsItsRankWithTheFileLineAndStopsTheOthers) {
  rd::Communicator comm;
  std::string text = "x,y\n";
  for (int i = 0; i < 600; ++i) text += i == 590 ? "1,2,3\n" : "1,2\n";  // file line 592, in the last part
  const auto path = shared_file(comm, "ragged.csv", text);
  try {
    rd::read_csv_shard(comm, path);
    ADD_FAILURE() << "no error";
  } catch (const robustfit::data::DataError& e) {
    EXPECT_EQ(comm.rank(), comm.size() - 1);
    EXPECT_NE(std::string(e.what()).find(":592:"), std::string::npos) << e.what();
  } catch (const rd::PeerFailure& e) {
    EXPECT_EQ(e.failed_rank(), comm.size() - 1);
  }
}

TEST(ShardedCsv, OwnFilePerRankMayHaveNoRows) {
  rd::Communicator comm;
  const auto path = std::filesystem::temp_directory_path() /
                    ("robustfit_shard_file_" + std::to_string(comm.size()) + "_" + std::to_string(comm.rank()) + ".csv");
  std::string text = "x\n";
  for (int i = 0; i < comm.rank(); ++i) text += std::to_string(i) + "\n";
  std::ofstream(path, std::ios::binary) << text;
  const robustfit::data::Table mine = rd::read_shard_file(path);
  EXPECT_EQ(mine.rows(), static_cast<std::size_t>(comm.rank()));
}

}  // namespace
