#pragma once
// Test inputs for the parallel CPU selection: random, sorted, reversed, tie-heavy, periodic
// (what a regular sample misses) and squares with gross outliers, in float or double; and the
// sizes around the thresholds of the parallel code (two row chunks of 32768 rows from n = 65536,
// a regular sample of 65536 values).
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace robustfit::testing {

inline const char* const kPatterns[] = {"normal", "sorted", "reversed", "ties", "periodic", "outliers"};

inline const std::size_t kParallelSizes[] = {65535, 65536, 65537, 98304, 131071, 300007};

template <class T>
std::vector<T> pattern(const std::string& name, std::size_t n) {
  std::mt19937_64 rng(n);
  std::normal_distribution<double> normal;
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double r = normal(rng);
    double x;
    if (name == "normal") x = r;
    else if (name == "sorted") x = static_cast<double>(i);
    else if (name == "reversed") x = -static_cast<double>(i);
    else if (name == "ties") x = std::floor(std::abs(r) * 3);             // 0, 1, 2, ... heavy ties
    else if (name == "periodic") x = (i % 65536 < 32768 ? 1e6 : 0) + r;  // what a regular sample misses
    else x = (i % 97 == 0 ? 1e12 : 0) + r * r;                            // squares with gross outliers
    v[i] = static_cast<T>(x);
  }
  return v;
}

}  // namespace robustfit::testing
