#pragma once
// The CUDA kNN engine with its internal knobs (tests force small tiles through them) and its
// device-time split (the benchmark reports it). The driver uses detail::make_cuda_engine.
#include <cstddef>
#include <memory>

#include "../engine.hpp"  // neighbors/src (regression/src has an engine.hpp too)

namespace robustfit::neighbors::detail {

// Which filter finds the candidates: the fused direct-distance kernel, or cuBLAS dot products
// with the spec's error bound (euclidean only); automatic: filter_choice.hpp decides.
enum class KnnFilter { automatic, direct, gemm };

struct CudaKnnTuning {
  std::size_t query_tile = 0;            // queries per tile; 0: as many as the budget allows (<= 8192; <= 32768 at small n)
  std::size_t train_chunk = 0;           // training rows per filter launch; 0: all
  std::size_t candidates_per_query = 0;  // first-pass candidate capacity; 0: automatic
  std::size_t sample_rows = 0;           // rows of the threshold sample; 0: automatic
  std::size_t budget_bytes = 0;          // device memory for tiles; 0: a fraction of free memory
  KnnFilter filter = KnnFilter::automatic;
  // The lists stay on the device (as torch's do): nearest() returns sizes only and
  // download_device_lists() copies them out. For the benchmark's device-only time and its test.
  bool lists_on_device = false;
  // Float GEMM filter: dot products on TF32 tensor cores with the bound widened for them
  // (gemm_filter.hpp); false: full float (pedantic cuBLAS). Double always uses DGEMM.
  bool gemm_tf32 = true;
};

// Device time (CUDA events) summed over nearest() calls since the last reset.
struct CudaKnnTimes {
  double distance_s = 0;   // sample distances + the full filter pass
  double selection_s = 0;  // batched k-th order statistics (sample thresholds, candidate k-th)
  double collect_s = 0;    // keeping, ordering and converting the neighbour lists (on the device)
  std::size_t overflow_queries = 0;  // queries redone with a larger candidate capacity
  std::size_t tf32_tiles = 0;        // tiles whose GEMM filter ran on TF32 tensor cores
};

class CudaKnnEngine : public Engine {
 public:
  virtual CudaKnnTimes times() const = 0;
  virtual void reset_times() = 0;
  // The filter nearest() uses for `need` neighbours (k, or k + 1 under leave-one-out) of
  // `queries` query rows (KnnFilter::direct or gemm).
  virtual KnnFilter filter_for(std::size_t need, std::size_t queries) const = 0;
  // With lists_on_device: the last nearest()'s lists, copied to the host.
  virtual NeighborLists download_device_lists() = 0;
};

std::unique_ptr<CudaKnnEngine> make_cuda_knn_engine(const RowMatrix& train, Metric metric,
                                                    Precision precision,
                                                    const CudaKnnTuning& tuning = {});

}  // namespace robustfit::neighbors::detail
