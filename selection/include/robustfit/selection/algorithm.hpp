#pragma once
// Names of the selection algorithms, shared by the CPU and CUDA paths and the CLI.
#include <string>
#include <string_view>
#include <vector>

namespace robustfit::selection {

enum class Algorithm {
  automatic,      // pick by size, type and shape (CUDA: from the H200 measurements)
  sort,           // sort & choose: the baseline
  cutting_plane,  // Kelley cutting plane + copy_if + sort (Beliakov)
  bucket,         // bucketSelect (Alabi et al.)
  radix,          // MSD radixSelect (Alabi et al.)
  sample,         // SampleSelect
  multi,          // bucketMultiSelect (Blanchard et al.): many ranks in one pass
  floyd_rivest,   // sampled bracket, one read of the input, radixSelect inside (ours)
  sampled_multi,  // many ranks: sampled bucket edges, a counting read, a compacting read (ours)
  bracket,        // sampled bracket, one read, finished on the device (ours): one host sync per vector, none batched
  nth_element,    // CPU: std::nth_element (introselect)
};

std::string_view to_string(Algorithm algorithm);
// Throws std::invalid_argument listing the accepted names.
Algorithm parse_algorithm(std::string_view name);
std::vector<std::string_view> algorithm_names();

}  // namespace robustfit::selection
