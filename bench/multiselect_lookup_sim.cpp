// How many values a many-rank selection would have to compact under two bucket lookups, on the
// host (no GPU): the sample-edge buckets of sampled multiselection (selection/src/cuda/
// sampled_multi_select.cu: E edges from a sorted sample, open buckets between them and an
// equality bucket per edge, found by a table and a binary search) against an exponent-band
// table (not built: a design being weighed for issue 11), where a key's range is
//   offset[band] + (mantissa >> shift[band]),  band = sign and exponent bits,
// each band given a power of two of ranges in proportion to its share of the sample, no search.
// For every distribution of the benchmark: the candidates (values in the buckets or ranges that
// hold a wanted rank and are not answered without copying), as a percentage of n, and the ranges
// the band table used. Ranks answered without copying: a rank on an edge (its equality bucket),
// or in a band range one key wide.
//
//   bench_multiselect_lookup_sim [--log-n 22] [--ranges 16384] [--edges 2048] [--sample 32768]
//                                [--ranks 101] [--types float,double]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "band_table.hpp"
#include "list_options.hpp"
#include "robustfit/data/distributions.hpp"

namespace {

using robustfit::data::Distribution;

struct Options {
  int log_n = 22, ranges = 16384, edges = 2048, sample = 32768, ranks = 101;
  std::vector<std::string> types{"float", "double"};
};

template <class T>
using Bits = robustfit::bench::BandBits<T>;

template <class T>
typename Bits<T>::Key key_of(T v) { return robustfit::bench::band_key(v); }

// Sum of the populations of the distinct buckets listed in `wanted` (-1: answered, no copy).
std::size_t candidates(const std::vector<std::size_t>& population, std::vector<long long> wanted) {
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::size_t total = 0;
  for (const long long b : wanted)
    if (b >= 0) total += population[static_cast<std::size_t>(b)];
  return total;
}

template <class T>
void simulate(const Options& options) {
  using Key = typename Bits<T>::Key;
  constexpr int kMantissa = Bits<T>::kMantissa;
  const std::size_t n = std::size_t{1} << options.log_n;
  std::printf("\n%s, n = 2^%d, %d ranks, sample %d: edges %d | band table of ~%d ranges\n", sizeof(T) == 4 ? "float" : "double",
              options.log_n, options.ranks, options.sample, options.edges, options.ranges);
  std::printf("%-24s %12s %12s %12s\n", "distribution", "edges: % n", "bands: % n", "ranges used");
  for (const Distribution d : robustfit::data::all_distributions()) {
    const auto values = robustfit::data::make_distribution<T>(d, n, 7, 16);
    std::vector<Key> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = key_of(values[i]);
    std::mt19937_64 rng(11);
    std::vector<Key> sample(static_cast<std::size_t>(options.sample));
    for (Key& k : sample) k = keys[rng() % n];
    std::sort(sample.begin(), sample.end());
    std::vector<Key> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    std::vector<Key> wanted_keys;
    for (int i = 0; i < options.ranks; ++i)
      wanted_keys.push_back(sorted[static_cast<std::size_t>(static_cast<double>(i) / (options.ranks - 1) * static_cast<double>(n - 1))]);

    // Sample edges: the middles of E equal parts of the sorted sample, equal ones merged.
    std::vector<Key> edges;
    for (int j = 0; j < options.edges; ++j) {
      const Key e = sample[static_cast<std::size_t>((2 * std::int64_t{j} + 1) * options.sample / (2 * options.edges))];
      if (edges.empty() || edges.back() != e) edges.push_back(e);
    }
    auto bucket = [&](Key k) {
      const auto lo = static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), k) - edges.begin());
      return lo > 0 && edges[lo - 1] == k ? 2 * lo - 1 : 2 * lo;
    };
    std::vector<std::size_t> bucket_population(2 * edges.size() + 1);
    for (const Key k : keys) ++bucket_population[bucket(k)];
    std::vector<long long> wanted_buckets;
    for (const Key k : wanted_keys) {
      const std::size_t b = bucket(k);
      wanted_buckets.push_back(b % 2 == 1 ? -1 : static_cast<long long>(b));
    }
    const std::size_t by_edges = candidates(bucket_population, wanted_buckets);

    // Band table: ranges per band a power of two >= ranges * share, at least one.
    const auto table = robustfit::bench::make_band_table<T>(sample, options.ranges);
    auto range = [&](Key k) { return table.range(k); };
    std::vector<std::size_t> range_population(table.ranges());
    for (const Key k : keys) ++range_population[range(k)];
    std::vector<long long> wanted_ranges;
    for (const Key k : wanted_keys)
      wanted_ranges.push_back(table.shift(static_cast<int>(k >> kMantissa)) == 0 ? -1 : static_cast<long long>(range(k)));
    const std::size_t by_bands = candidates(range_population, wanted_ranges);

    std::printf("%-24s %11.2f%% %11.2f%% %12zu\n", std::string(robustfit::data::to_string(d)).c_str(),
                100.0 * static_cast<double>(by_edges) / static_cast<double>(n),
                100.0 * static_cast<double>(by_bands) / static_cast<double>(n), table.ranges());
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_multiselect_lookup_sim: error: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (arg == "--log-n") options.log_n = std::stoi(value());
      else if (arg == "--ranges") options.ranges = std::stoi(value());
      else if (arg == "--edges") options.edges = std::stoi(value());
      else if (arg == "--sample") options.sample = std::stoi(value());
      else if (arg == "--ranks") options.ranks = std::stoi(value());
      else if (arg == "--types") options.types = robustfit::bench::split(value());
      else {
        std::fprintf(stderr, "bench_multiselect_lookup_sim: error: unknown option %s\n", arg.c_str());
        return 2;
      }
    } catch (const std::exception&) {
      std::fprintf(stderr, "bench_multiselect_lookup_sim: error: %s needs an integer\n", arg.c_str());
      return 2;
    }
  }
  if (options.log_n < 10 || options.log_n > 28 || options.ranks < 2 || options.edges < 1 || options.sample < options.edges ||
      options.ranges < 1) {
    std::fprintf(stderr, "bench_multiselect_lookup_sim: error: need 10 <= --log-n <= 28, --ranks >= 2, "
                         "1 <= --edges <= --sample, --ranges >= 1\n");
    return 2;
  }
  for (const auto& type : options.types) {
    if (type == "float") simulate<float>(options);
    else if (type == "double") simulate<double>(options);
    else {
      std::fprintf(stderr, "bench_multiselect_lookup_sim: error: --types takes float and double, not %s\n", type.c_str());
      return 2;
    }
  }
}
