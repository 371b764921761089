#include "tall_qr.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <vector>

#include "robustfit/common/parallel.hpp"

namespace robustfit::regression::detail {

namespace {
constexpr std::size_t kBlockRows = 8192;
}

Eigen::MatrixXd stacked_block_factors(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                      std::span<const std::size_t> rows) {
  const std::size_t m = rows.empty() ? static_cast<std::size_t>(X.rows()) : rows.size();
  const Eigen::Index q = X.cols() + 1;
  const std::size_t blocks = std::max<std::size_t>(1, (m + kBlockRows - 1) / kBlockRows);
  std::vector<Eigen::MatrixXd> factors(blocks);
  // One gather buffer per worker, factored in place: a fresh block and Eigen's copy of it per
  // block cost page faults and a copy. The same QR: in place runs the same Householder steps on
  // the same column-major layout (tall_qr_test.cpp checks it bit for bit).
  std::vector<Eigen::VectorXd> buffers(common::worker_count(blocks));
  common::parallel_for(blocks, [&](unsigned w, std::size_t b) {
    const std::size_t begin = b * m / blocks, end = (b + 1) * m / blocks;
    const auto m_block = static_cast<Eigen::Index>(end - begin);
    if (buffers[w].size() < m_block * q) buffers[w].resize(static_cast<Eigen::Index>((m + blocks - 1) / blocks) * q);
    Eigen::Map<Eigen::MatrixXd> block(buffers[w].data(), m_block, q);
    // Gathered a column at a time: X and the block are column-major, so each column is read in
    // ascending rows and written contiguously (a row at a time touched q columns per row).
    if (rows.empty()) {
      block.leftCols(q - 1) = X.middleRows(static_cast<Eigen::Index>(begin), m_block);
      block.col(q - 1) = y.segment(static_cast<Eigen::Index>(begin), m_block);
    } else {
      for (Eigen::Index c = 0; c < q; ++c) {
        const double* from = c + 1 < q ? X.col(c).data() : y.data();
        double* to = block.col(c).data();
        for (std::size_t i = begin; i < end; ++i) to[i - begin] = from[rows[i]];
      }
    }
    Eigen::HouseholderQR<Eigen::Ref<Eigen::MatrixXd>> qr(block);
    const Eigen::Index k = std::min(m_block, q);
    factors[b] = qr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
  });
  Eigen::Index total = 0;
  for (const auto& f : factors) total += f.rows();
  Eigen::MatrixXd stacked(total, q);
  Eigen::Index at = 0;
  for (const auto& f : factors) {
    stacked.middleRows(at, f.rows()) = f;
    at += f.rows();
  }
  return stacked;
}

}  // namespace robustfit::regression::detail
