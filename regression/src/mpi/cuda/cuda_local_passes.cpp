// The distributed engine's passes over a rank's rows on its GPU (local_passes.hpp): the CUDA
// engine's device operations (cuda/device_ops.hpp: the residual GEMM, the h-subset Gram kernel
// with its tie rule) on this rank's rows, in double; the squares stay on the device and DIBMS
// reads them through CUDA LocalShards.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "../../cuda/cublas_check.hpp"
#include "../../cuda/device_array.hpp"
#include "../../cuda/device_ops.hpp"
#include "../local_passes.hpp"
#include "below_counts.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/distributed/cuda_local_shard.hpp"

namespace robustfit::regression::detail {

namespace {

using cuda::DeviceArray;

// Candidates per batch at most: each is one CUDA LocalShard, whose DIBMS passes are launched one
// shard at a time.
constexpr std::size_t kMaxBatch = 1024;

template <class T>
void upload(DeviceArray<T>& array, const T* values, std::size_t count, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(array.reserve(count), values, sizeof(T) * count, cudaMemcpyHostToDevice, stream));
}

template <class T>
void download(T* values, const T* d_values, std::size_t count, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(values, d_values, sizeof(T) * count, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

class CudaLocalPasses final : public LocalPasses {
 public:
  CudaLocalPasses(const Eigen::MatrixXd& X, const Eigen::VectorXd& y)
      : host_X_(&X), host_y_(&y), n_(static_cast<std::size_t>(X.rows())), p_(static_cast<std::size_t>(X.cols())) {
    cudaGetLastError();  // an earlier failure elsewhere is not ours
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    try {
      CUBLAS_CHECK(cublasCreate(&blas_));
      CUBLAS_CHECK(cublasSetStream(blas_, stream_));
      if (n_ > 0) {
        upload(X_, X.data(), n_ * p_, stream_);
        upload(y_, y.data(), n_, stream_);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
      }
      std::size_t free_bytes = 0, total_bytes = 0;
      CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      // Per candidate: its squares, the shard's copy of them and the shard's and Gram scratch.
      batch_limit_ = std::clamp<std::size_t>(free_bytes / 3 / std::max<std::size_t>(1, 24 * n_), 1, kMaxBatch);
    } catch (...) {
      if (blas_) cublasDestroy(blas_);
      cudaStreamDestroy(stream_);
      throw;
    }
  }
  ~CudaLocalPasses() override {
    cublasDestroy(blas_);
    cudaStreamDestroy(stream_);
  }
  CudaLocalPasses(const CudaLocalPasses&) = delete;
  CudaLocalPasses& operator=(const CudaLocalPasses&) = delete;

  std::string backend_name() const override { return "cuda"; }
  std::size_t batch_limit() const override { return batch_limit_; }
  std::optional<DeviceDesign> device_design() const override {
    return DeviceDesign{host_X_, host_y_, X_.data(), y_.data(), n_, p_};
  }

  std::vector<std::unique_ptr<distributed::LocalShard>> squares(const Eigen::MatrixXd& betas) override {
    m_ = static_cast<std::size_t>(betas.cols());
    std::vector<std::unique_ptr<distributed::LocalShard>> shards;
    if (n_ == 0) {  // no rows here: nothing on the device
      for (std::size_t j = 0; j < m_; ++j) shards.push_back(distributed::make_cpu_local_shard<double>(std::span<const double>()));
      return shards;
    }
    const Eigen::MatrixXd B = betas;  // contiguous
    upload(B_, B.data(), p_ * m_, stream_);
    double* R = R_.reserve(n_ * m_);
    cuda::squared_residuals(X_.data(), y_.data(), n_, p_, B_.data(), m_, R, stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));  // the shards read the squares on their threads' streams
    // Shards over the squares (no copy: they live until the next squares()), made on the host's
    // threads at once (each on this rank's device): each NaN scan ends in a synchronisation.
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    shards.resize(m_);
    common::parallel_for_dynamic(m_, [&](unsigned, std::size_t j) {
      CUDA_CHECK(cudaSetDevice(device));
      shards[j] = distributed::make_cuda_local_shard_over_device<double>(R + j * n_, n_);
    });
    return shards;
  }

  std::vector<BelowThreshold> below(std::span<const double> t) override {
    std::vector<BelowThreshold> out(m_);
    if (n_ == 0) return out;
    upload(t_, t.data(), m_, stream_);
    std::vector<double> host(3 * m_);
    cuda::below_counts(R_.data(), n_, m_, t_.data(), scratch_.reserve(cuda::below_counts_scratch(n_, m_)),
                       counts_.reserve(3 * m_), stream_);
    download(host.data(), counts_.data(), host.size(), stream_);
    for (std::size_t j = 0; j < m_; ++j)
      out[j] = {static_cast<std::uint64_t>(host[3 * j]), static_cast<std::uint64_t>(host[3 * j + 1]), host[3 * j + 2]};
    return out;
  }

  void subset_grams(std::span<const double> t, std::span<const std::uint64_t> take, Eigen::MatrixXd& grams) override {
    const std::size_t q = p_ + 1;
    grams.setZero(static_cast<Eigen::Index>(q * q), static_cast<Eigen::Index>(m_));
    if (n_ == 0) return;
    // subset_gram takes the rows below t_j and the first h - below_j ties in row order: with
    // h = n and below_j = n - take_j, the first take_j.
    std::vector<std::int64_t> shifted(m_);
    for (std::size_t j = 0; j < m_; ++j) shifted[j] = static_cast<std::int64_t>(n_ - take[j]);
    upload(t_, t.data(), m_, stream_);
    upload(shifted_, shifted.data(), m_, stream_);
    cuda::subset_gram(X_.data(), y_.data(), R_.data(), n_, p_, m_, t_.data(), shifted_.data(), nullptr, n_,
                      subset_scratch_.reserve(cuda::h_subset_scratch(n_, m_)),
                      gram_scratch_.reserve(cuda::subset_gram_scratch(n_, p_, m_)), G_.reserve(q * q * m_), stream_);
    std::vector<double> lower(q * q * m_);
    download(lower.data(), G_.data(), lower.size(), stream_);
    for (std::size_t j = 0; j < m_; ++j) {  // the kernel fills the lower triangle
      const double* from = lower.data() + j * q * q;
      Eigen::Map<Eigen::MatrixXd> gram(grams.col(static_cast<Eigen::Index>(j)).data(), static_cast<Eigen::Index>(q),
                                       static_cast<Eigen::Index>(q));
      for (std::size_t b = 0; b < q; ++b)
        for (std::size_t a = b; a < q; ++a)
          gram(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) =
              gram(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(a)) = from[b * q + a];
    }
  }

  std::vector<std::size_t> subset_rows(std::size_t j, double t, std::uint64_t below, std::uint64_t take) override {
    const std::size_t h = below + take;
    if (n_ == 0 || h == 0) return {};
    const auto below_signed = static_cast<std::int64_t>(below);
    upload(t_, &t, 1, stream_);
    upload(shifted_, &below_signed, 1, stream_);
    std::vector<std::int32_t> rows32(h);
    cuda::h_subset_rows(R_.data() + j * n_, n_, 1, t_.data(), shifted_.data(), h, subset_scratch_.reserve(cuda::h_subset_scratch(n_, 1)),
                        rows_.reserve(h), stream_);
    download(rows32.data(), rows_.data(), h, stream_);
    return {rows32.begin(), rows32.end()};
  }

 private:
  const Eigen::MatrixXd* host_X_;  // what X_ and y_ are copies of
  const Eigen::VectorXd* host_y_;
  std::size_t n_, p_, m_ = 0;  // rows, coefficients, candidates of the last squares()
  std::size_t batch_limit_ = 1;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  DeviceArray<double> X_, y_, B_, R_, t_, scratch_, counts_, gram_scratch_, G_;
  DeviceArray<std::int64_t> shifted_;
  DeviceArray<int> subset_scratch_;
  DeviceArray<std::int32_t> rows_;
};

}  // namespace

std::unique_ptr<LocalPasses> make_cuda_local_passes(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  return std::make_unique<CudaLocalPasses>(X, y);
}

}  // namespace robustfit::regression::detail
