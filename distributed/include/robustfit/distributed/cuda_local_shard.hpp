#pragma once
// The CUDA backend of the rank-local selection work (local_shard.hpp), one rank per GPU: the
// rank's values live on its GPU (a copy, as given, or the caller's device memory); every LocalShard call is a CUB pass over them,
// and only counts, a few keys and sums cross to the host. Same results as the CPU backend,
// call by call (bucket_of's arithmetic, the same sample draw, exact pivot sums). Built when
// CUDA and MPI are both on; otherwise the factories throw std::runtime_error.
#include <cstddef>
#include <memory>
#include <span>

#include "robustfit/distributed/communicator.hpp"
#include "robustfit/distributed/local_shard.hpp"

namespace robustfit::distributed {

// Host values, uploaded once to the current device. Throws std::invalid_argument naming the
// position of the first NaN (as make_cpu_local_shard), OutOfMemory (a std::bad_alloc) when the
// keys do not fit on the device.
template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard(std::span<const T> values);

// `count` values already on the current device (copied there: d_values may be freed after).
template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard_from_device(const T* d_values, std::size_t count);

// The same without the copy: the shard reads d_values, which must stay unchanged while it lives
// (the distributed engine's squared residuals, a batch of candidates' shards over one matrix).
template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard_over_device(const T* d_values, std::size_t count);

// One GPU per rank: makes GPU (local rank modulo the device count) current for this process,
// the local rank being this rank's number among the ranks of its host (MPI_COMM_TYPE_SHARED).
// Returns the device number, or -1 when there is no usable device (nothing is changed then).
// Call before anything else touches the GPU.
int bind_gpu_to_local_rank(Communicator& comm);

// The calling thread's current device (-1 without CUDA), and making a device current on another
// thread (a thread starts on device 0): for work a rank hands to a thread of its own.
int current_gpu();
void use_gpu(int device);

}  // namespace robustfit::distributed
