#pragma once
// The CPU engine's euclidean filter kernel. Training rows are stored transposed in blocks
// (structure of arrays: for a block of kBlockRows rows, d contiguous columns, and the rows'
// squared norms), so that for a group of queries a_j = |x_j|^2 - 2 q.x_j is computed over
// the block's rows in vector registers, compared with each query's limit and only the rare
// survivors are written out. The |q|^2 term is a per-query constant the caller adds to its
// bound. Compiled for AVX-512, AVX2+FMA and baseline x86-64, picked at run time: the a_j may
// carry fused multiply-adds (cpu_engine.cpp's error bound covers that; THE distance,
// direct_distance.cpp, never does).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "robustfit/neighbors/knn.hpp"

namespace robustfit::neighbors::detail {

inline constexpr std::size_t kBlockRows = 256;   // training rows per transposed block
inline constexpr std::size_t kGroupQueries = 4;  // queries scanned together (block loads reused)

// Training rows in blocks of kBlockRows, column by column, in spatial order (spatial_order.hpp)
// so that a block's bounding box is small; rows past n are padding whose squared norm is NaN,
// so they never pass a comparison.
class TransposedBlocks {
 public:
  explicit TransposedBlocks(const RowMatrix& train);
  std::size_t blocks() const { return blocks_; }
  // The training row in slot j of a block (-1: padding).
  const std::int64_t* rows(std::size_t block) const { return rows_.get() + block * kBlockRows; }
  // The block's bounding box: column c spans [box_low()[c * blocks() + b], box_high()[...]].
  const double* box_low() const { return box_low_.get(); }
  const double* box_high() const { return box_high_.get(); }
  // d * kBlockRows values: column c of the block at [c * kBlockRows, (c + 1) * kBlockRows).
  const double* columns(std::size_t block) const { return columns_.get() + block * d_ * kBlockRows; }
  const double* squared_norms(std::size_t block) const { return squared_norms_.get() + block * kBlockRows; }
  const double* norms(std::size_t block) const { return norms_.get() + block * kBlockRows; }
  double max_norm(std::size_t block) const { return max_norm_.get()[block]; }

 private:
  struct Free {
    void operator()(void* p) const;
  };
  using Buffer = std::unique_ptr<double[], Free>;
  static Buffer allocate(std::size_t count);
  std::size_t d_ = 0, blocks_ = 0;
  Buffer columns_, squared_norms_, norms_, max_norm_, box_low_, box_high_;
  std::unique_ptr<std::int64_t[]> rows_;
};

// A row of a block that passed the kernel's comparison for query `query` of the group.
struct Survivor {
  std::uint32_t row;    // within the block
  std::uint32_t query;  // within the group
  double a;             // |x|^2 - 2 q.x as computed
};

// For the kGroupQueries queries with minus_two_q[g * d + c] = -2 q_gc: a_gj = |x_j|^2 +
// sum_c (-2 q_gc) x_jc (column order) for every row j of the block; writes (j, g, a_gj) for
// every a_gj <= limit[g] to out (room for kGroupQueries * kBlockRows), rows ascending;
// returns the count. Unused query slots: limit -inf.
std::size_t scan_block(const double* columns, const double* squared_norms, std::size_t d, const double* minus_two_q,
                       const double* limit, Survivor* out);

// lower[b] = sum_c gap_c^2 for every block b, gap_c = the distance from q_c to the block's
// interval [low[c * blocks + b], high[c * blocks + b]] (0 inside), each step rounded.
void box_gaps(const double* low, const double* high, std::size_t blocks, std::size_t d, const double* q,
              double* lower);

// "avx512", "avx2" or "baseline": the kernel variant in use (by default the best this CPU has).
const char* scan_block_variant();
// For tests: run the named variant from now on; false (and no change) if this CPU lacks it.
bool use_scan_block_variant(std::string_view name);

}  // namespace robustfit::neighbors::detail
