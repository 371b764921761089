#include "cuda_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu_engine.hpp"
#include "robustfit/common/parallel.hpp"
#include "cublas_check.hpp"
#include "device_ops.hpp"
#include "device_standardized_rows.hpp"
#include "host_staging.hpp"
#include "engine_factory.hpp"
#include "least_squares.hpp"
#include "lms_window_choice.hpp"
#include "stopwatch.hpp"
#include "subsets.hpp"
#include "robustfit/selection/capabilities.hpp"
#include "robustfit/selection/cuda/errors.hpp"
#include "robustfit/selection/cuda/select.hpp"

namespace robustfit::regression {

namespace cuda {

namespace {

// Subsamples of FAST-LTS (300 to 1500 rows) are cheaper on the host than a kernel launch each.
constexpr std::size_t kCpuDelegationRows = 20000;
constexpr std::size_t kMaxBudgetBytes = std::size_t{16} << 30;
constexpr std::size_t kMinBudgetBytes = std::size_t{64} << 20;
// LMS: bounds on the windows before sorting (lms_objectives) from this many rows (below, the
// full sort is cheap; the bounds need window_sample_size() rows or more), and up to this many
// chosen columns are sorted one device-wide radix sort each rather than as one segmented sort.
constexpr std::size_t kBoundedWindowRows = 16384;
constexpr std::size_t kColumnSorts = 64;

template <class T>
void to_device(T* d_dst, const T* src, std::size_t count, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(d_dst, src, sizeof(T) * count, cudaMemcpyHostToDevice, stream));
}

template <class T>
void to_host(T* dst, const T* d_src, std::size_t count, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(dst, d_src, sizeof(T) * count, cudaMemcpyDeviceToHost, stream));
}

// Device Scalars into host doubles (synchronises the stream).
template <class Scalar>
void download_as_double(double* out, const Scalar* d_src, std::size_t count, cudaStream_t stream) {
  std::vector<Scalar> host(count);
  to_host(host.data(), d_src, count, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::copy(host.begin(), host.end(), out);
}

}  // namespace

template <class Scalar>
CudaEngine<Scalar>::CudaEngine(const detail::ModelData& data, selection::Algorithm selection)
    : data_(data), n_(data.n()), p_(data.p()), selection_(selection) {
  set_up([&] {
    detail::Stopwatch trace_watch;
    Scalar* d_X = X_d_.reserve(n_ * p_);
    detail::trace("cuda engine X allocated", trace_watch.lap());
    upload_through_staging(d_X, data.X.data(), n_ * p_, stream_);
    detail::trace("cuda engine X uploaded", trace_watch.lap());
    upload_through_staging(y_d_.reserve(n_), data.y.data(), n_, stream_);
    detail::trace("cuda engine y uploaded", trace_watch.lap());
  });
}

template <class Scalar>
CudaEngine<Scalar>::CudaEngine(std::unique_ptr<const detail::ModelData> data, selection::Algorithm selection)
    : CudaEngine(*data, selection) {
  owned_ = std::move(data);  // data_ refers to the object, which stays where it is
}

template <class Scalar>
CudaEngine<Scalar>::CudaEngine(DeviceArray<Scalar>&& d_X, std::size_t n, std::size_t p, selection::Algorithm selection)
    : owned_(std::make_unique<const detail::ModelData>()), data_(*owned_), host_data_(false), n_(n), p_(p),
      selection_(selection) {
  set_up([&] {
    X_d_ = std::move(d_X);
    fill(y_d_.reserve(n_), n_, Scalar(1), stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  });
}

template <class Scalar>
template <class Load>
void CudaEngine<Scalar>::set_up(Load&& load) {
  // A failed allocation elsewhere leaves a non-sticky error behind that later launch checks
  // (ours and cuBLAS's) would report: clear it so that this engine sees only its own errors.
  cudaGetLastError();
  detail::Stopwatch trace_watch;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  try {
    CUBLAS_CHECK(cublasCreate(&blas_));
    cudaGetLastError();  // cublasCreate may succeed after an internal allocation failure
    CUBLAS_CHECK(cublasSetStream(blas_, stream_));
    detail::trace("cuda engine stream, cuBLAS", trace_watch.lap());
    load();
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    budget_bytes_ = std::clamp(free_bytes / 3, kMinBudgetBytes, kMaxBudgetBytes);
  } catch (...) {  // the destructor does not run when the constructor throws
    if (blas_) cublasDestroy(blas_);
    cudaStreamDestroy(stream_);
    throw;
  }
}

template <class Scalar>
std::optional<detail::DeviceDesign> CudaEngine<Scalar>::device_design() const {
  if constexpr (std::is_same_v<Scalar, double>) {
    if (host_data_) return detail::DeviceDesign{&data_.X, &data_.y, X_d_.data(), y_d_.data(), n_, p_};
  }
  return std::nullopt;  // float copies, or no host data to mirror
}

template <class Scalar>
const detail::ModelData& CudaEngine<Scalar>::host_data() const {
  if (!host_data_) throw std::logic_error("this CUDA engine keeps its rows on the device only (FAST-MCD's search)");
  return data_;
}

template <class Scalar>
Eigen::MatrixXd CudaEngine<Scalar>::rows_of(std::span<const std::int64_t> rows) const {
  const auto m = static_cast<Eigen::Index>(rows.size()), p = static_cast<Eigen::Index>(p_);
  Eigen::MatrixXd A(m, p + 1);
  if (host_data_) {
    for (Eigen::Index r = 0; r < m; ++r) {
      const auto row = static_cast<Eigen::Index>(rows[static_cast<std::size_t>(r)]);
      A.row(r).head(p) = data_.X.row(row);
      A(r, p) = data_.y(row);
    }
    return A;
  }
  // From the device: one gather and one small download (a subsample is at most a few
  // thousand rows).
  DeviceArray<std::int64_t> d_rows;
  DeviceArray<Scalar> d_A;
  to_device(d_rows.reserve(rows.size()), rows.data(), rows.size(), stream_);
  gather_rows(X_d_.data(), y_d_.data(), n_, p_, d_rows.data(), rows.size(), d_A.reserve(rows.size() * (p_ + 1)), stream_);
  download_as_double(A.data(), d_A.data(), rows.size() * (p_ + 1), stream_);
  return A;
}

template <class Scalar>
CudaEngine<Scalar>::~CudaEngine() {
  if (blas_) cublasDestroy(blas_);
  if (stream_) cudaStreamDestroy(stream_);
}

template <class Scalar>
std::string CudaEngine<Scalar>::selection_name() const {
  // auto: batched radix or the batched bracket, by each batch's shape (select.cu's automatic_batched).
  return std::string(selection::to_string(selection_));
}

template <class Scalar>
std::size_t CudaEngine<Scalar>::column_bytes(std::size_t copies) const {
  return std::max<std::size_t>(1, n_ * sizeof(Scalar) * copies);
}

template <class Scalar>
std::size_t CudaEngine<Scalar>::batch_columns(std::size_t m, std::size_t copies) const {
  return std::clamp<std::size_t>(budget_bytes_ / column_bytes(copies), 1, std::max<std::size_t>(m, 1));
}

template <class Scalar>
template <class Work>
void CudaEngine<Scalar>::for_each_batch(std::size_t m, std::size_t copies, Work&& work) {
  std::size_t batch = batch_columns(m, copies);
  for (std::size_t begin = 0; begin < m;) {
    const std::size_t count = std::min(batch, m - begin);
    try {
      work(begin, count);
    } catch (const selection::cuda::OutOfMemory&) {
      if (count == 1) throw;
      release_batch_buffers();
      batch = count / 2;
      budget_bytes_ = batch * column_bytes(copies);
      continue;
    }
    begin += count;
  }
}

template <class Scalar>
void CudaEngine<Scalar>::release_batch_buffers() {
  // Work queued before the failure may still use these buffers.
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  cudaGetLastError();
  for (auto* array : {&B_, &R_, &sorted_, &t_, &whitened_, &shifts_}) array->release();
  for (auto* array : {&objective_, &center_, &half_, &G_, &gram_scratch_, &sum_scratch_, &range_, &lower_, &upper_})
    array->release();
  hist_.release();
  inside_.release();
  below_.release();
  equal_.release();
  rows_.release();
  subset_scratch_.release();
  sort_temp_.release();
  workspace_.release();
}

template <class Scalar>
void CudaEngine<Scalar>::upload_batch(const Eigen::MatrixXd& betas, std::size_t begin, std::size_t count) {
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  const Matrix batch = betas.middleCols(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(count)).template cast<Scalar>();
  to_device(B_.reserve(p_ * count), batch.data(), p_ * count, stream_);
  // The copy from pageable memory has left `batch` once cudaMemcpyAsync returns.
}

template <class Scalar>
void CudaEngine<Scalar>::select_thresholds(std::size_t count, std::size_t k) {
  // Sort and radix run as one batched pass; the single-vector algorithms one column at a time
  // (the selection module decides, after the capability table).
  selection::cuda::kth_smallest_batched(R_.data(), n_, count, n_, k, t_.reserve(count), selection_, workspace_, stream_);
}

template <class Scalar>
void CudaEngine<Scalar>::squares_and_thresholds(std::size_t count, std::size_t k) {
  Scalar* R = R_.reserve(n_ * count);
  clock_.start(stream_);
  squared_residuals(X_d_.data(), y_d_.data(), n_, p_, B_.data(), count, R, stream_);
  clock_.residuals_done(stream_);
  select_thresholds(count, k);
  clock_.selection_done(stream_);
}

template <class Scalar>
void CudaEngine<Scalar>::objectives_of_batch(const Eigen::MatrixXd& betas, std::size_t begin, std::size_t count,
                                             std::size_t h) {
  upload_batch(betas, begin, count);
  squares_and_thresholds(count, h - 1);
  trimmed_sums(R_.data(), n_, count, t_.data(), h, sum_scratch_.reserve(trimmed_sums_scratch(n_, count)), objective_.reserve(count),
               below_.reserve(count), equal_.reserve(count), stream_);
}

template <class Scalar>
void CudaEngine<Scalar>::solve_elemental(const detail::SubsetMatrix& subsets, Eigen::MatrixXd& betas,
                                         std::vector<std::uint8_t>& ok) {
  // On the host, as every engine does (subsets.hpp says why): p x p systems, no device work.
  detail::solve_elemental_systems(host_data().X, host_data().y, subsets, betas, ok);
}

template <class Scalar>
void CudaEngine<Scalar>::lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) {
  for_each_batch(static_cast<std::size_t>(betas.cols()), 1, [&](std::size_t begin, std::size_t count) {
    objectives_of_batch(betas, begin, count, h);
    to_host(out.data() + begin, objective_.data(), count, stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    clock_.collect();
  });
}

template <class Scalar>
void CudaEngine<Scalar>::c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) {
  const std::size_t q = p_ + 1;
  std::vector<double> gram;
  for_each_batch(static_cast<std::size_t>(betas.cols()), 1, [&](std::size_t begin, std::size_t count) {
    detail::Stopwatch trace_watch;
    const double res0 = clock_.residuals_s(), sel0 = clock_.selection_s();
    objectives_of_batch(betas, begin, count, h);
    int* subset_scratch = subset_scratch_.reserve(h_subset_scratch(n_, count));
    subset_gram(X_d_.data(), y_d_.data(), R_.data(), n_, p_, count, t_.data(), below_.data(), equal_.data(), h, subset_scratch,
                gram_scratch_.reserve(subset_gram_scratch(n_, p_, count)), G_.reserve(q * q * count), stream_);
    std::int32_t* d_rows = rows_.reserve(h);  // for the rare QR fallback below, which must not allocate
    gram.resize(q * q * count);
    to_host(objective_before.data() + begin, objective_.data(), count, stream_);
    to_host(gram.data(), G_.data(), gram.size(), stream_);
    const double launch_s = trace_watch.lap();
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    clock_.collect();
    detail::trace("cuda c_step launch", launch_s, static_cast<long long>(count));
    detail::trace("cuda c_step wait", trace_watch.lap(), static_cast<long long>(n_));
    detail::trace("cuda c_step gpu residuals", clock_.residuals_s() - res0);
    detail::trace("cuda c_step gpu selection", clock_.selection_s() - sel0);
    // From here on nothing allocates on the device: the batch cannot be retried half done.
    for (std::size_t c = 0; c < count; ++c) {
      const Eigen::Map<const Eigen::MatrixXd> G(gram.data() + c * q * q, static_cast<Eigen::Index>(q), static_cast<Eigen::Index>(q));
      const auto col = static_cast<Eigen::Index>(begin + c);
      const auto pp = static_cast<Eigen::Index>(p_);
      if (auto beta = detail::solve_normal_equations(G.topLeftCorner(pp, pp), G.row(pp).head(pp).transpose())) {
        betas.col(col) = *beta;
        continue;
      }
      // Ill-conditioned normal equations: QR on the host's double data from this candidate's
      // rows (rare), listed by the same rule as the Gram matrix's.
      std::vector<std::int32_t> rows32(h);
      h_subset_rows(R_.data() + c * n_, n_, 1, t_.data() + c, below_.data() + c, h, subset_scratch, d_rows, stream_);
      to_host(rows32.data(), d_rows, h, stream_);
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      const std::vector<std::size_t> rows(rows32.begin(), rows32.end());
      if (auto beta = detail::ls_on_rows(host_data().X, host_data().y, rows)) betas.col(col) = *beta;
    }
    detail::trace("cuda c_step host solves", trace_watch.lap());
  });
}

template <class Scalar>
void CudaEngine<Scalar>::lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept,
                                        std::span<double> out, std::size_t needed) {
  for_each_batch(static_cast<std::size_t>(betas.cols()), adjust_intercept ? 2 : 1, [&](std::size_t begin, std::size_t count) {
    upload_batch(betas, begin, count);
    if (adjust_intercept) {
      Scalar* R = R_.reserve(n_ * count);
      clock_.start(stream_);
      residuals(blas_, X_d_.data(), y_d_.data(), n_, p_, 1, B_.data(), count, R, stream_);
      clock_.residuals_done(stream_);
      // Which candidates need the exact window: all, unless bounds show that some cannot be
      // among the `needed` best (engine.hpp's contract; lms_window_choice below).
      std::vector<double> lower, upper;
      std::vector<std::size_t> exact(count);
      for (std::size_t c = 0; c < count; ++c) exact[c] = c;
      if (needed < count && n_ >= kBoundedWindowRows) {
        window_bounds(R, n_, count, h, window_sample_span(n_, h), range_.reserve(4 * count),
                      hist_.reserve(kWindowBins * count), inside_.reserve(count), lower_.reserve(count),
                      upper_.reserve(count), stream_);
        lower.resize(count);
        upper.resize(count);
        to_host(lower.data(), lower_.data(), count, stream_);
        to_host(upper.data(), upper_.data(), count, stream_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        exact = detail::lms_window_choice(betas.middleCols(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(count)),
                                          lower, upper, needed);
      }
      const std::size_t chosen = exact.size();
      sorted_.reserve(n_ * count);
      const Scalar* sorted = sorted_.data();
      if (chosen == count) {
        const std::size_t temp = sort_columns_temp_bytes<Scalar>(n_, count);
        sort_columns(R, sorted_.data(), n_, count, sort_temp_.reserve(temp), temp, stream_);
      } else if (chosen <= kColumnSorts) {
        // A few columns: one device-wide radix sort each (the segmented sort gives each column one
        // block, which takes as long for a few columns as for a full wave).
        const std::size_t temp = sort_column_temp_bytes<Scalar>(n_);
        void* d_temp = sort_temp_.reserve(temp);
        for (std::size_t i = 0; i < chosen; ++i) sort_column(R + exact[i] * n_, sorted_.data() + i * n_, n_, d_temp, temp, stream_);
      } else {
        // Many: gathered into sorted_, then sorted back into R_ (no longer needed) as one segmented sort.
        for (std::size_t i = 0; i < chosen; ++i)
          CUDA_CHECK(cudaMemcpyAsync(sorted_.data() + i * n_, R + exact[i] * n_, sizeof(Scalar) * n_, cudaMemcpyDeviceToDevice,
                                     stream_));
        const std::size_t temp = sort_columns_temp_bytes<Scalar>(n_, chosen);
        sort_columns(sorted_.data(), R, n_, chosen, sort_temp_.reserve(temp), temp, stream_);
        sorted = R;
      }
      shortest_windows(sorted, n_, chosen, h, center_.reserve(chosen), half_.reserve(chosen), stream_);
      clock_.selection_done(stream_);  // the bounds, sorts and window scans select the h-subsets
      std::vector<double> centers(chosen), halves(chosen);
      to_host(centers.data(), center_.data(), chosen, stream_);
      to_host(halves.data(), half_.data(), chosen, stream_);
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      clock_.collect();
      // Skipped candidates: their proven lower bound, intercept as it came.
      if (chosen != count)
        for (std::size_t c = 0; c < count; ++c) out[begin + c] = lower[c];
      for (std::size_t i = 0; i < chosen; ++i) {
        betas(0, static_cast<Eigen::Index>(begin + exact[i])) = centers[i];
        out[begin + exact[i]] = halves[i] * halves[i];
      }
    } else {
      squares_and_thresholds(count, h - 1);
      download_as_double(out.data() + begin, t_.data(), count, stream_);
      clock_.collect();  // download_as_double synchronises
    }
  });
}

template <class Scalar>
std::unique_ptr<detail::Engine> CudaEngine<Scalar>::restrict_to(std::span<const std::size_t> rows) const {
  const std::vector<std::int64_t> listed(rows.begin(), rows.end());
  const Eigen::MatrixXd A = rows_of(listed);
  auto data = std::make_unique<detail::ModelData>();
  data->X = A.leftCols(static_cast<Eigen::Index>(p_));
  data->y = A.col(static_cast<Eigen::Index>(p_));
  data->intercept = data_.intercept;
  if (rows.size() <= kCpuDelegationRows) return std::make_unique<detail::CpuEngine>(std::move(data->X), std::move(data->y));
  return std::make_unique<CudaEngine>(std::unique_ptr<const detail::ModelData>(std::move(data)), selection_);
}

template <class Scalar>
std::unique_ptr<detail::StandardizedRows> CudaEngine<Scalar>::standardized_columns(std::size_t first, std::size_t count) const {
  if constexpr (std::is_same_v<Scalar, double>) {
    if (first + count > p_) throw std::logic_error("standardized_columns: columns out of range");
    return std::make_unique<DeviceStandardizedRows>(X_d_.data() + first * n_, n_, count, selection_);
  } else {
    (void)first, (void)count;
    return nullptr;  // float rows: FAST-MCD computes in double
  }
}

template <class Scalar>
void CudaEngine<Scalar>::subset_grams(const detail::SubsetMatrix& rows, Eigen::MatrixXd& grams) {
  // A few (p+1)-row starts: on the host, all starts' rows fetched at once.
  const auto q = static_cast<Eigen::Index>(p_ + 1), k = rows.rows();
  const Eigen::MatrixXd A = rows_of(std::span<const std::int64_t>(rows.data(), static_cast<std::size_t>(rows.size())));
  grams.resize(q * q, rows.cols());
  for (Eigen::Index j = 0; j < rows.cols(); ++j) {
    Eigen::Map<Eigen::MatrixXd> G(grams.col(j).data(), q, q);
    G.setZero();
    const Eigen::MatrixXd start = A.middleRows(j * k, k);
    G.template selfadjointView<Eigen::Lower>().rankUpdate(start.transpose());
  }
}

template <class Scalar>
void CudaEngine<Scalar>::mcd_c_step(const Eigen::MatrixXd& centers, const Eigen::MatrixXd& whiteners, std::size_t h,
                                    Eigen::MatrixXd& grams) {
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  const std::size_t q = p_ + 1, m = static_cast<std::size_t>(centers.cols());
  const auto pp = static_cast<Eigen::Index>(p_);
  grams.resize(static_cast<Eigen::Index>(q * q), centers.cols());
  // Per candidate: p whitened columns and one column of distances.
  for_each_batch(m, p_ + 1, [&](std::size_t begin, std::size_t count) {
    detail::Stopwatch trace_watch;
    const double res0 = clock_.residuals_s(), sel0 = clock_.selection_s();
    Matrix Wt(pp, pp * static_cast<Eigen::Index>(count)), shifts(pp, static_cast<Eigen::Index>(count));
    for (std::size_t c = 0; c < count; ++c) {
      const auto j = static_cast<Eigen::Index>(begin + c), k = static_cast<Eigen::Index>(c);
      const Eigen::MatrixXd W = whiteners.middleCols(j * pp, pp);
      Wt.middleCols(k * pp, pp) = W.transpose().template cast<Scalar>();
      shifts.col(k) = (W * centers.col(j)).template cast<Scalar>();
    }
    Scalar* d_Wt = B_.reserve(p_ * p_ * count);
    to_device(d_Wt, Wt.data(), p_ * p_ * count, stream_);
    to_device(shifts_.reserve(p_ * count), shifts.data(), p_ * count, stream_);
    Scalar* D = R_.reserve(n_ * count);
    clock_.start(stream_);
    mahalanobis_squared(blas_, X_d_.data(), n_, p_, d_Wt, shifts_.data(), count, whitened_.reserve(n_ * p_ * count), D,
                        stream_);
    clock_.residuals_done(stream_);
    select_thresholds(count, h - 1);
    clock_.selection_done(stream_);
    // #{d < t_j} per candidate (the trimmed sums themselves are not needed), then the h-subsets
    // (ties by row order, as the CPU engine) and their Gram matrices [X 1]^T [X 1].
    trimmed_sums(D, n_, count, t_.data(), h, sum_scratch_.reserve(trimmed_sums_scratch(n_, count)),
                 objective_.reserve(count), below_.reserve(count), equal_.reserve(count), stream_);
    subset_gram(X_d_.data(), y_d_.data(), D, n_, p_, count, t_.data(), below_.data(), equal_.data(), h,
                subset_scratch_.reserve(h_subset_scratch(n_, count)),
                gram_scratch_.reserve(subset_gram_scratch(n_, p_, count)), G_.reserve(q * q * count), stream_);
    to_host(grams.data() + begin * q * q, G_.data(), q * q * count, stream_);
    const double launch_s = trace_watch.lap();
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    clock_.collect();
    detail::trace("cuda mcd_c_step launch", launch_s, static_cast<long long>(count));
    detail::trace("cuda mcd_c_step wait", trace_watch.lap(), static_cast<long long>(n_));
    detail::trace("cuda mcd gpu distances", clock_.residuals_s() - res0);
    detail::trace("cuda mcd gpu selection", clock_.selection_s() - sel0);
  });
}

template <class Scalar>
void CudaEngine<Scalar>::mcd_rows(const Eigen::VectorXd& center, const Eigen::MatrixXd& whitener, std::size_t h,
                                  double threshold, Eigen::VectorXd* distances, std::vector<std::size_t>* rows,
                                  Eigen::MatrixXd* gram) {
  using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  const std::size_t q = p_ + 1;
  const Matrix Wt = whitener.transpose().template cast<Scalar>();
  const Matrix shift = (whitener * center).template cast<Scalar>();
  to_device(B_.reserve(p_ * p_), Wt.data(), p_ * p_, stream_);
  to_device(shifts_.reserve(p_), shift.data(), p_, stream_);
  Scalar* D = R_.reserve(n_);
  mahalanobis_squared(blas_, X_d_.data(), n_, p_, B_.data(), shifts_.data(), 1, whitened_.reserve(n_ * p_), D, stream_);
  // The rows taken: below the h-th smallest and the first ties at it, or below the threshold.
  if (h > 0) {
    select_thresholds(1, h - 1);
  } else {
    const auto t = static_cast<Scalar>(threshold);
    to_device(t_.reserve(1), &t, 1, stream_);
  }
  std::int64_t below = 0;
  trimmed_sums(D, n_, 1, t_.data(), std::max<std::size_t>(h, 1), sum_scratch_.reserve(trimmed_sums_scratch(n_, 1)),
               objective_.reserve(1), below_.reserve(1), equal_.reserve(1), stream_);
  if (h == 0) {
    to_host(&below, below_.data(), 1, stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  const std::size_t taken = h > 0 ? h : static_cast<std::size_t>(below);
  if (distances != nullptr) {
    distances->resize(static_cast<Eigen::Index>(n_));
    download_through_staging(distances->data(), D, n_, stream_);
  }
  std::vector<std::int32_t> taken_rows;
  if (rows != nullptr && taken > 0) {
    h_subset_rows(D, n_, 1, t_.data(), below_.data(), taken, subset_scratch_.reserve(h_subset_scratch(n_, 1)),
                  rows_.reserve(taken), stream_);
    taken_rows.resize(taken);
    to_host(taken_rows.data(), rows_.data(), taken, stream_);
  }
  if (gram != nullptr) {
    gram->setZero(static_cast<Eigen::Index>(q), static_cast<Eigen::Index>(q));
    if (taken > 0) {
      subset_gram(X_d_.data(), y_d_.data(), D, n_, p_, 1, t_.data(), below_.data(), equal_.data(), taken,
                  subset_scratch_.reserve(h_subset_scratch(n_, 1)), gram_scratch_.reserve(subset_gram_scratch(n_, p_, 1)),
                  G_.reserve(q * q), stream_);
      to_host(gram->data(), G_.data(), q * q, stream_);
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (rows != nullptr) rows->assign(taken_rows.begin(), taken_rows.end());
}

template class CudaEngine<float>;
template class CudaEngine<double>;

}  // namespace cuda

namespace detail {

std::unique_ptr<Engine> make_cuda_engine(const ModelData& data, selection::Algorithm selection, Precision precision) {
  selection::require_offered(selection::Backend::cuda, selection::Use::batched, selection);
  if (precision == Precision::single_precision) return std::make_unique<cuda::CudaEngine<float>>(data, selection);
  return std::make_unique<cuda::CudaEngine<double>>(data, selection);
}

}  // namespace detail
}  // namespace robustfit::regression
