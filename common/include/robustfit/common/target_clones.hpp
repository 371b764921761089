#pragma once
// Hot loops compiled twice on x86-64, for AVX2 and for the baseline (SSE2), the one the CPU has
// picked when the program loads (GCC/Clang function multiversioning): the baseline binary runs
// everywhere, and AVX2 machines count and compare four doubles per instruction instead of
// one or two. AVX2 alone brings no FMA, so both versions compute the same numbers.
// Not under ThreadSanitizer: the loader runs the clones' resolvers before its runtime starts
// (a crash at load).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(__SANITIZE_THREAD__)
#define ROBUSTFIT_TARGET_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ROBUSTFIT_TARGET_CLONES
#endif
