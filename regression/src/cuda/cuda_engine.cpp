#include "cuda_engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_engine.hpp"
#include "device_ops.hpp"
#include "engine_factory.hpp"
#include "least_squares.hpp"
#include "robustfit/selection/cuda/errors.hpp"
#include "robustfit/selection/cuda/select.hpp"

namespace robustfit::regression {

namespace cuda {

namespace {

// Subsamples of FAST-LTS (300 to 1500 rows) are cheaper on the host than a kernel launch each.
constexpr std::size_t kCpuDelegationRows = 20000;
constexpr std::size_t kMaxBudgetBytes = std::size_t{16} << 30;
constexpr std::size_t kMinBudgetBytes = std::size_t{64} << 20;

bool batched_family(selection::Algorithm a) {
  return a == selection::Algorithm::automatic || a == selection::Algorithm::radix || a == selection::Algorithm::sort;
}

template <class T>
void to_device(T* d_dst, const T* src, std::size_t count, cudaStream_t stream) {
  RF_CUDA(cudaMemcpyAsync(d_dst, src, sizeof(T) * count, cudaMemcpyHostToDevice, stream));
}

template <class T>
void to_host(T* dst, const T* d_src, std::size_t count, cudaStream_t stream) {
  RF_CUDA(cudaMemcpyAsync(dst, d_src, sizeof(T) * count, cudaMemcpyDeviceToHost, stream));
}

}  // namespace

CudaEngine::CudaEngine(Eigen::MatrixXd X, Eigen::VectorXd y, selection::Algorithm selection)
    : X_(std::move(X)), y_(std::move(y)), n_(static_cast<std::size_t>(X_.rows())), p_(static_cast<std::size_t>(X_.cols())),
      selection_(selection) {
  // A failed allocation elsewhere leaves a non-sticky error behind that later launch checks
  // (ours and cuBLAS's) would report: clear it so that this engine sees only its own errors.
  cudaGetLastError();
  RF_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  try {
    RF_CUBLAS(cublasCreate(&blas_));
    cudaGetLastError();  // cublasCreate may succeed after an internal allocation failure
    RF_CUBLAS(cublasSetStream(blas_, stream_));
    to_device(X_d_.reserve(n_ * p_), X_.data(), n_ * p_, stream_);
    to_device(y_d_.reserve(n_), y_.data(), n_, stream_);
    std::size_t free_bytes = 0, total_bytes = 0;
    RF_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    budget_bytes_ = std::clamp(free_bytes / 3, kMinBudgetBytes, kMaxBudgetBytes);
    RF_CUDA(cudaStreamSynchronize(stream_));
  } catch (...) {  // the destructor does not run when the constructor throws
    if (blas_) cublasDestroy(blas_);
    cudaStreamDestroy(stream_);
    throw;
  }
}

CudaEngine::~CudaEngine() {
  if (blas_) cublasDestroy(blas_);
  if (stream_) cudaStreamDestroy(stream_);
}

std::string CudaEngine::selection_name() const {
  return selection_ == selection::Algorithm::automatic ? "radix" : std::string(selection::to_string(selection_));
}

std::size_t CudaEngine::batch_columns(std::size_t m, std::size_t copies) const {
  const std::size_t per_column = std::max<std::size_t>(1, n_ * sizeof(double) * copies);
  return std::clamp<std::size_t>(budget_bytes_ / per_column, 1, std::max<std::size_t>(m, 1));
}

void CudaEngine::upload_batch(const Eigen::MatrixXd& betas, Eigen::Index begin, std::size_t count) {
  to_device(B_.reserve(p_ * count), betas.col(begin).data(), p_ * count, stream_);
}

void CudaEngine::select_thresholds(std::size_t count, std::size_t k) {
  double* t = t_.reserve(count);
  if (batched_family(selection_)) {
    selection::cuda::kth_smallest_batched(R_.data(), n_, count, n_, k, t, selection_, workspace_, stream_);
    return;
  }
  // The seed algorithms without a batched form: one selection per column (synchronising).
  std::vector<double> host(count);
  for (std::size_t j = 0; j < count; ++j)
    host[j] = selection::cuda::kth_smallest(R_.data() + j * n_, n_, k, selection_, workspace_, stream_);
  to_device(t, host.data(), count, stream_);
  RF_CUDA(cudaStreamSynchronize(stream_));
}

void CudaEngine::objectives_of_batch(const Eigen::MatrixXd& betas, Eigen::Index begin, std::size_t count, std::size_t h) {
  upload_batch(betas, begin, count);
  double* R = R_.reserve(n_ * count);
  residuals(blas_, X_d_.data(), y_d_.data(), n_, p_, 0, B_.data(), count, R, stream_);
  square_inplace(R, n_ * count, stream_);
  select_thresholds(count, h - 1);
  trimmed_sums(R, n_, count, t_.data(), h, sum_scratch_.reserve(trimmed_sums_scratch(n_, count)), objective_.reserve(count),
               below_.reserve(count), stream_);
}

void CudaEngine::solve_elemental(const detail::SubsetMatrix& subsets, Eigen::MatrixXd& betas,
                                 std::vector<std::uint8_t>& ok) {
  const auto m = static_cast<std::size_t>(subsets.cols());
  const auto p = static_cast<int>(p_);
  betas.resize(subsets.rows(), subsets.cols());
  ok.assign(m, 0);
  if (m == 0) return;
  to_device(subsets_.reserve(p_ * m), subsets.data(), p_ * m, stream_);
  double* A = A_.reserve(p_ * p_ * m);
  double* b = b_.reserve(p_ * m);
  gather_elemental(X_d_.data(), y_d_.data(), n_, p_, subsets_.data(), m, A, b, stream_);
  std::vector<double*> pointers(2 * m);
  for (std::size_t j = 0; j < m; ++j) {
    pointers[j] = A + j * p_ * p_;
    pointers[m + j] = b + j * p_;
  }
  double** d_pointers = pointers_.reserve(2 * m);
  to_device(d_pointers, pointers.data(), 2 * m, stream_);
  RF_CUBLAS(cublasDgetrfBatched(blas_, p, d_pointers, p, pivots_.reserve(p_ * m), info_.reserve(m), static_cast<int>(m)));
  int solve_info = 0;
  RF_CUBLAS(cublasDgetrsBatched(blas_, CUBLAS_OP_N, p, 1, d_pointers, p, pivots_.data(), d_pointers + m, p,
                                &solve_info, static_cast<int>(m)));
  std::vector<double> lu(p_ * p_ * m);
  std::vector<int> info(m);
  to_host(lu.data(), A, lu.size(), stream_);
  to_host(betas.data(), b, p_ * m, stream_);
  to_host(info.data(), info_.data(), m, stream_);
  RF_CUDA(cudaStreamSynchronize(stream_));
  for (std::size_t j = 0; j < m; ++j) {
    // Singular as the CPU engine judges it: a pivot below 1e-12 of the largest.
    double smallest = INFINITY, largest = 0;
    for (std::size_t i = 0; i < p_; ++i) {
      const double u = std::abs(lu[j * p_ * p_ + i * p_ + i]);
      smallest = std::min(smallest, u);
      largest = std::max(largest, u);
    }
    ok[j] = info[j] == 0 && largest > 0 && smallest > 1e-12 * largest && betas.col(static_cast<Eigen::Index>(j)).allFinite();
  }
}

void CudaEngine::lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) {
  const auto m = static_cast<std::size_t>(betas.cols());
  for (std::size_t begin = 0, batch = batch_columns(m, 1); begin < m; begin += batch) {
    const std::size_t count = std::min(batch, m - begin);
    objectives_of_batch(betas, static_cast<Eigen::Index>(begin), count, h);
    to_host(out.data() + begin, objective_.data(), count, stream_);
    RF_CUDA(cudaStreamSynchronize(stream_));
  }
}

void CudaEngine::c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) {
  const auto m = static_cast<std::size_t>(betas.cols());
  const std::size_t q = p_ + 1;
  std::vector<double> gram;
  for (std::size_t begin = 0, batch = batch_columns(m, 1); begin < m; begin += batch) {
    const std::size_t count = std::min(batch, m - begin);
    objectives_of_batch(betas, static_cast<Eigen::Index>(begin), count, h);
    h_subset_rows(R_.data(), n_, count, t_.data(), below_.data(), h, subset_scratch_.reserve(h_subset_scratch(n_, count)),
                  rows_.reserve(h * count), stream_);
    augmented_gram(X_d_.data(), y_d_.data(), n_, p_, rows_.data(), h, count,
                   gram_scratch_.reserve(augmented_gram_scratch(p_, h, count)), G_.reserve(q * q * count), stream_);
    gram.resize(q * q * count);
    to_host(objective_before.data() + begin, objective_.data(), count, stream_);
    to_host(gram.data(), G_.data(), gram.size(), stream_);
    RF_CUDA(cudaStreamSynchronize(stream_));
    for (std::size_t c = 0; c < count; ++c) {
      const Eigen::Map<const Eigen::MatrixXd> G(gram.data() + c * q * q, static_cast<Eigen::Index>(q), static_cast<Eigen::Index>(q));
      const auto col = static_cast<Eigen::Index>(begin + c);
      const auto pp = static_cast<Eigen::Index>(p_);
      if (auto beta = detail::solve_normal_equations(G.topLeftCorner(pp, pp), G.row(pp).head(pp).transpose())) {
        betas.col(col) = *beta;
        continue;
      }
      // Ill-conditioned normal equations: QR on the host from this candidate's rows (rare).
      std::vector<std::int32_t> rows32(h);
      to_host(rows32.data(), rows_.data() + c * h, h, stream_);
      RF_CUDA(cudaStreamSynchronize(stream_));
      const std::vector<std::size_t> rows(rows32.begin(), rows32.end());
      if (auto beta = detail::ls_on_rows(X_, y_, rows)) betas.col(col) = *beta;
    }
  }
}

void CudaEngine::lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept, std::span<double> out) {
  const auto m = static_cast<std::size_t>(betas.cols());
  for (std::size_t begin = 0, batch = batch_columns(m, adjust_intercept ? 2 : 1); begin < m; begin += batch) {
    const std::size_t count = std::min(batch, m - begin);
    upload_batch(betas, static_cast<Eigen::Index>(begin), count);
    double* R = R_.reserve(n_ * count);
    std::vector<double> values(count);
    if (adjust_intercept) {
      residuals(blas_, X_d_.data(), y_d_.data(), n_, p_, 1, B_.data(), count, R, stream_);
      const std::size_t temp = sort_columns_temp_bytes(n_, count);
      sort_columns(R, sorted_.reserve(n_ * count), n_, count, sort_temp_.reserve(temp), temp, stream_);
      shortest_windows(sorted_.data(), n_, count, h, center_.reserve(count), half_.reserve(count), stream_);
      std::vector<double> centers(count);
      to_host(centers.data(), center_.data(), count, stream_);
      to_host(values.data(), half_.data(), count, stream_);
      RF_CUDA(cudaStreamSynchronize(stream_));
      for (std::size_t c = 0; c < count; ++c) {
        betas(0, static_cast<Eigen::Index>(begin + c)) = centers[c];
        out[begin + c] = values[c] * values[c];
      }
    } else {
      residuals(blas_, X_d_.data(), y_d_.data(), n_, p_, 0, B_.data(), count, R, stream_);
      square_inplace(R, n_ * count, stream_);
      select_thresholds(count, h - 1);
      to_host(out.data() + begin, t_.data(), count, stream_);
      RF_CUDA(cudaStreamSynchronize(stream_));
    }
  }
}

std::unique_ptr<detail::Engine> CudaEngine::restrict_to(std::span<const std::size_t> rows) const {
  Eigen::MatrixXd X(static_cast<Eigen::Index>(rows.size()), X_.cols());
  Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    X.row(static_cast<Eigen::Index>(i)) = X_.row(static_cast<Eigen::Index>(rows[i]));
    y(static_cast<Eigen::Index>(i)) = y_(static_cast<Eigen::Index>(rows[i]));
  }
  if (rows.size() <= kCpuDelegationRows) return std::make_unique<detail::CpuEngine>(std::move(X), std::move(y));
  return std::make_unique<CudaEngine>(std::move(X), std::move(y), selection_);
}

}  // namespace cuda

namespace detail {

std::unique_ptr<Engine> make_cuda_engine(const ModelData& data, selection::Algorithm selection) {
  if (selection == selection::Algorithm::nth_element || selection == selection::Algorithm::multi)
    throw std::invalid_argument("selection algorithm '" + std::string(selection::to_string(selection)) +
                                "' is not offered inside CUDA fits (use auto, sort, cutting-plane, bucket, radix or sample)");
  return std::make_unique<cuda::CudaEngine>(data.X, data.y, selection);
}

}  // namespace detail
}  // namespace robustfit::regression
