#pragma once
// X^T Y for tall, thin X and Y on the device by row chunks: cuBLAS's GEMV, SYRK and GEMM on an
// n x p matrix with n in the millions split the work over the tiny output only (7 ms for the
// 10 x 10 Gram of 10^6 rows); a strided-batched GEMM over row chunks (tensor cores for double)
// and the sum of the chunks' products in chunk order (a GEMV) take a fraction of that, and are
// deterministic.
#include <cublas_v2.h>

#include <cstddef>

#include "device_array.hpp"

namespace robustfit::regression::cuda {

inline constexpr std::size_t kProductChunkRows = 8192;

// Ones needed by chunked_cross_product for n rows.
inline std::size_t chunked_product_ones(std::size_t n) { return n / kProductChunkRows + 1; }

// out (a x b, ld a, device) = X^T Y over the n rows of X (n x a, ld ldx) and Y (n x b, ld ldy), on
// the handle's stream. `ones`: chunked_product_ones(n) device ones; `products`: scratch.
void chunked_cross_product(cublasHandle_t blas, const double* X, std::size_t ldx, const double* Y, std::size_t ldy,
                           std::size_t n, std::size_t a, std::size_t b, const double* ones, DeviceArray<double>& products,
                           double* out);

}  // namespace robustfit::regression::cuda
