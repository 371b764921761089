// Built without CUDA: the CUDA LocalShard's factories report why there is none.
#include <stdexcept>

#include "robustfit/distributed/cuda_local_shard.hpp"

namespace robustfit::distributed {

template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard(std::span<const T>) {
  throw std::runtime_error("the CUDA LocalShard is not available: this build of robust-fit has no CUDA support");
}
template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard_from_device(const T*, std::size_t) {
  throw std::runtime_error("the CUDA LocalShard is not available: this build of robust-fit has no CUDA support");
}
template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard_over_device(const T*, std::size_t) {
  throw std::runtime_error("the CUDA LocalShard is not available: this build of robust-fit has no CUDA support");
}
template std::unique_ptr<LocalShard> make_cuda_local_shard<float>(std::span<const float>);
template std::unique_ptr<LocalShard> make_cuda_local_shard<double>(std::span<const double>);
template std::unique_ptr<LocalShard> make_cuda_local_shard_from_device<float>(const float*, std::size_t);
template std::unique_ptr<LocalShard> make_cuda_local_shard_from_device<double>(const double*, std::size_t);
template std::unique_ptr<LocalShard> make_cuda_local_shard_over_device<float>(const float*, std::size_t);
template std::unique_ptr<LocalShard> make_cuda_local_shard_over_device<double>(const double*, std::size_t);

int bind_gpu_to_local_rank(Communicator&) { return -1; }
int current_gpu() { return -1; }
void use_gpu(int) {}

}  // namespace robustfit::distributed
