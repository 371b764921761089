#pragma once
// The internal engine boundary of the kNN module: an engine finds the k nearest training rows
// of query rows; validation, standardisation, prediction and leave-one-out live once in the
// driver (knn.cpp, predict.cpp, loo.cpp). Engines keep a reference to `train` (the driver
// keeps it alive) and tile queries and training rows so no full m x n matrix is held.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "list_allocator.hpp"
#include "robustfit/neighbors/knn.hpp"

namespace robustfit::neighbors::detail {

// resize() of rows and distances allocates without writing (list_allocator.hpp): an engine
// writes every entry it sizes.
struct NeighborLists {
  std::size_t queries = 0, k = 0;
  ListVector<std::int64_t> rows;     // queries * k, 0-based training rows, query-major
  ListVector<double> distances;      // same shape: the direct distances of those rows
};

class Engine {
 public:
  virtual ~Engine() = default;
  // The k nearest training rows of each query row. ordered: within a query, sorted by
  // (distance, row); unordered: any order (the set is the same) -- prediction needs no order.
  // exclude_self_from: if set to r0, query i is training row r0 + i and that row is excluded
  // (leave-one-out); then k <= n - 1 is required.
  virtual NeighborLists nearest(const RowMatrix& queries, std::size_t k, bool ordered,
                                std::optional<std::size_t> exclude_self_from) = 0;
  virtual std::string name() const = 0;           // "cpu" / "cuda"
};

std::unique_ptr<Engine> make_cpu_engine(const RowMatrix& train, Metric metric);
#ifdef ROBUSTFIT_CUDA_NEIGHBORS
std::unique_ptr<Engine> make_cuda_engine(const RowMatrix& train, Metric metric, Precision precision);
#endif

}  // namespace robustfit::neighbors::detail
