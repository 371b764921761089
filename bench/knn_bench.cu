// kNN on the GPU: the CUDA engine's exact search on the kNN shapes of docs (issue 9), float and
// double, with the engine's device-time split (distances/filter, selection, collection) and the
// GEMM floor (cuBLAS GEMMs of the same m x n x d shape in 1024-query tiles, the distance work of
// the GEMM form alone). Also the leave-one-out shape (n x n, own row excluded) and the
// 2^24 x 2^16 scale check. Writes CSV; bench/peers/knn_peers.py reads it and times torch on
// the same shapes. Two times per shape: the wall time with the lists written into the host
// vectors of the engine boundary (median_ms), and with the lists left on the device as torch
// leaves its results (device_median_ms, ordered, same engine settings otherwise). The filter_*
// shapes force the fused direct or the GEMM-form filter over d (the filter choice's measurements);
// the fp32gemm_* shapes run the float GEMM filter on full-float cuBLAS instead of TF32; small_n:
// 2^14 x 2^14, k = 10, at d = 2..128 with the automatic choice (the per-call fixed costs).
//
//   bench_knn_bench --out knn.csv [--reps 5] [--quick] [--no-scale] [--only NAME[,NAME...]]
// (--only: just the shapes whose name starts with one of the NAMEs, e.g. target,grid_k)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "cuda/cuda_engine.hpp"

using robustfit::neighbors::Metric;
using robustfit::neighbors::Precision;
using robustfit::neighbors::RowMatrix;
namespace detail = robustfit::neighbors::detail;

namespace {

struct Shape {
  std::string name;
  std::size_t m, n, d, k;
  bool loo = false;
  detail::KnnFilter filter = detail::KnnFilter::automatic;
  bool tf32 = true;  // float GEMM filter on TF32 tensor cores (false: full float, pedantic)
};

RowMatrix uniform(std::size_t rows, std::size_t d, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  RowMatrix x(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(d));
  double* p = x.data();
  for (std::size_t i = 0; i < rows * d; ++i) p[i] = double(gen() >> 11) * 0x1.0p-53;
  return x;
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

// cuBLAS GEMMs of m x n x d in 1024-query tiles (the GEMM form's distance work), median ms.
template <class T>
double gemm_floor_ms(std::size_t m, std::size_t n, std::size_t d, int reps) {
  const std::size_t tile = std::min<std::size_t>(m, 1024);
  T *a = nullptr, *b = nullptr, *c = nullptr;
  check(cudaMalloc(&a, tile * d * sizeof(T)), "malloc");
  check(cudaMalloc(&b, n * d * sizeof(T)), "malloc");
  check(cudaMalloc(&c, tile * n * sizeof(T)), "malloc");
  check(cudaMemset(a, 0, tile * d * sizeof(T)), "memset");
  check(cudaMemset(b, 0, n * d * sizeof(T)), "memset");
  cublasHandle_t handle;
  cublasCreate(&handle);
  const T one = 1, zero = 0;
  auto run = [&] {
    for (std::size_t q = 0; q < m; q += tile) {
      if constexpr (sizeof(T) == 4)
        cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(tile), int(d), &one, b, int(d), a,
                    int(d), &zero, c, int(n));
      else
        cublasDgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(tile), int(d), &one, b, int(d), a,
                    int(d), &zero, c, int(n));
    }
  };
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  run();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(start);
    run();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  cublasDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path = "knn.csv";
  int reps = 5;
  bool quick = false, scale = true;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) out_path = argv[++i];
    else if (arg == "--reps" && i + 1 < argc) reps = std::stoi(argv[++i]);
    else if (arg == "--quick") quick = true;
    else if (arg == "--no-scale") scale = false;
    else if (arg == "--only" && i + 1 < argc) {
      std::string list = argv[++i];
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        only.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    }
    else {
      std::fprintf(stderr, "usage: bench_knn_bench --out FILE.csv [--reps N] [--quick] [--no-scale] [--only NAME,...]\n");
      return 2;
    }
  }
  const std::size_t K = 1024;
  std::vector<Shape> shapes = {
      {"target_5x", 16 * K, 1024 * K, 8, 10},
      {"target_d32", 16 * K, 1024 * K, 32, 10},
      {"target_d128_k100", 16 * K, 256 * K, 128, 100},
      {"target_k1000", 64 * K, 256 * K, 8, 1000},
      {"target_d2_k100", K, 1024 * K, 2, 100},
      {"k16384", 4 * K, 256 * K, 8, 16384},
      // Both filters forced at k = 16384 (the choice takes GEMM in float there; double unmeasured).
      {"k16384_direct", 4 * K, 256 * K, 8, 16384, false, detail::KnnFilter::direct},
      {"k16384_gemm", 4 * K, 256 * K, 8, 16384, false, detail::KnnFilter::gemm},
  };
  // Small problems with the automatic choice (2^14 x 2^14, k = 10): the per-call fixed costs.
  for (std::size_t d : {2, 4, 8, 16, 32, 64, 128}) shapes.push_back({"small_n", 16 * K, 16 * K, d, 10});
  if (!quick) {
    for (std::size_t n : {16 * K, 64 * K, 256 * K, 1024 * K})
      for (std::size_t d : {2, 8, 32, 128}) {
        if (n == 1024 * K && (d == 8 || d == 32)) continue;  // target shapes above
        shapes.push_back({"grid", 16 * K, n, d, 10});
      }
    for (std::size_t k : {1, 100, 1000}) shapes.push_back({"grid_k", 16 * K, 256 * K, 8, k});
    for (std::size_t m : {K, 64 * K}) shapes.push_back({"grid_m", m, 256 * K, 8, 10});
  }
  for (std::size_t n : {16 * K, 256 * K, 1024 * K})
    for (std::size_t d : {2, 4, 8, 16, 32, 64, 128}) {
      if (n == 1024 * K && d > 8) continue;  // the filter choice below d = 16 at the 5x shape's n
      shapes.push_back({"filter_direct", 16 * K, n, d, 10, false, detail::KnnFilter::direct});
      shapes.push_back({"filter_gemm", 16 * K, n, d, 10, false, detail::KnnFilter::gemm});
    }
  // The float GEMM filter on full-float cuBLAS instead of TF32 (the TF32 bound's price).
  shapes.push_back({"fp32gemm_d128_k100", 16 * K, 256 * K, 128, 100, false, detail::KnnFilter::gemm, false});
  shapes.push_back({"fp32gemm_d32", 16 * K, 1024 * K, 32, 10, false, detail::KnnFilter::gemm, false});
  shapes.push_back({"loo", 256 * K, 256 * K, 8, 50, true});
  if (scale) shapes.push_back({"scale_2^24x2^16", 64 * K, 16384 * K, 8, 10});
  if (!only.empty())
    shapes.erase(std::remove_if(shapes.begin(), shapes.end(),
                                [&](const Shape& s) {
                                  return std::none_of(only.begin(), only.end(), [&](const std::string& p) {
                                    return s.name.rfind(p, 0) == 0;
                                  });
                                }),
                 shapes.end());

  std::ofstream out(out_path);
  out << "shape,precision,m,n,d,k,loo,reps,median_ms,min_ms,max_ms,distance_ms,selection_ms,"
         "collect_ms,gemm_floor_ms,overflow_queries,unordered_median_ms,filter,device_median_ms,tf32_tiles\n";
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::cerr << "device: " << prop.name << "\n";
  for (const Shape& shape : shapes) {
    const RowMatrix train = uniform(shape.n, shape.d, 1 + shape.n + shape.d);
    const RowMatrix queries = shape.loo ? RowMatrix() : uniform(shape.m, shape.d, 7 + shape.m);
    const RowMatrix& q = shape.loo ? train : queries;
    for (Precision precision : {Precision::single_precision, Precision::double_precision}) {
      const bool single = precision == Precision::single_precision;
      const bool big = shape.name.rfind("scale", 0) == 0;
      const int shape_reps = big ? 1 : reps;
      try {
        detail::CudaKnnTuning tuning;
        tuning.filter = shape.filter;
        tuning.gemm_tf32 = shape.tf32;
        auto engine = detail::make_cuda_knn_engine(train, Metric::euclidean, precision, tuning);
        const bool gemm = engine->filter_for(shape.k + (shape.loo ? 1 : 0), std::size_t(q.rows())) == detail::KnnFilter::gemm;
        const std::optional<std::size_t> self = shape.loo ? std::optional<std::size_t>(0) : std::nullopt;
        if (!big) engine->nearest(q, shape.k, true, self);  // warm-up
        std::vector<double> wall;
        detail::CudaKnnTimes sum{};
        for (int r = 0; r < shape_reps; ++r) {
          engine->reset_times();
          check(cudaDeviceSynchronize(), "sync");
          const auto start = std::chrono::steady_clock::now();
          engine->nearest(q, shape.k, true, self);
          check(cudaDeviceSynchronize(), "sync");
          wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
          const auto t = engine->times();
          sum.distance_s += t.distance_s;
          sum.selection_s += t.selection_s;
          sum.collect_s += t.collect_s;
          sum.overflow_queries += t.overflow_queries;
          sum.tf32_tiles += t.tf32_tiles;
        }
        // Unordered lists (what prediction asks for: no sort), on the target shapes only.
        std::vector<double> unordered;
        if (shape.name.rfind("target", 0) == 0 || shape.name == "k16384")
          for (int r = 0; r < shape_reps; ++r) {
            const auto start = std::chrono::steady_clock::now();
            engine->nearest(q, shape.k, false, self);
            check(cudaDeviceSynchronize(), "sync");
            unordered.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
          }
        std::sort(unordered.begin(), unordered.end());
        const double unordered_ms = unordered.empty() ? 0.0 : unordered[unordered.size() / 2];
        engine.reset();
        // The same search with the lists left on the device (torch's setting).
        std::vector<double> device_only;
        {
          tuning.lists_on_device = true;
          auto resident = detail::make_cuda_knn_engine(train, Metric::euclidean, precision, tuning);
          if (!big) resident->nearest(q, shape.k, true, self);
          for (int r = 0; r < shape_reps; ++r) {
            check(cudaDeviceSynchronize(), "sync");
            const auto start = std::chrono::steady_clock::now();
            resident->nearest(q, shape.k, true, self);
            check(cudaDeviceSynchronize(), "sync");
            device_only.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
          }
        }
        std::sort(device_only.begin(), device_only.end());
        const double floor = big ? 0.0
                             : single ? gemm_floor_ms<float>(q.rows(), shape.n, shape.d, 3)
                                      : gemm_floor_ms<double>(q.rows(), shape.n, shape.d, 3);
        std::sort(wall.begin(), wall.end());
        char line[640];
        std::snprintf(line, sizeof line, "%s,%s,%zu,%zu,%zu,%zu,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%zu,%.3f,%s,%.3f,%zu\n",
                      shape.name.c_str(), single ? "float" : "double", std::size_t(q.rows()), shape.n,
                      shape.d, shape.k, int(shape.loo), shape_reps, wall[wall.size() / 2], wall.front(),
                      wall.back(), sum.distance_s * 1e3 / shape_reps, sum.selection_s * 1e3 / shape_reps,
                      sum.collect_s * 1e3 / shape_reps, floor, sum.overflow_queries, unordered_ms,
                      gemm ? "gemm" : "direct", device_only[device_only.size() / 2], sum.tf32_tiles);
        out << line << std::flush;
        std::cerr << line;
      } catch (const std::exception& e) {
        std::cerr << shape.name << " " << (single ? "float" : "double") << ": " << e.what() << "\n";
        out << shape.name << "," << (single ? "float" : "double") << "," << q.rows() << "," << shape.n
            << "," << shape.d << "," << shape.k << "," << int(shape.loo) << ",0,error,,,,,,,,,,,\n";
      }
    }
  }
  return 0;
}
