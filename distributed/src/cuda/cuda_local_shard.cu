// The CUDA backend of the rank-local selection work (local_shard.hpp): the rank's keys on its
// GPU, each call one or two CUB passes over them. Bucket counts are a histogram over the
// candidates' buckets (bucket_of's arithmetic, fast_bucket.hpp); the reduce is a stable
// selection of the kept and single buckets' candidates, grouped by a radix sort on their slot;
// cutting-plane sums are exact 128-bit sums (as the CPU backend's). Only counts, samples, sums
// and a few keys cross to the host.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <mpi.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../../selection/src/cuda/cuda_check.cuh"
#include "fast_bucket.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/distributed/cuda_local_shard.hpp"
#include "robustfit/distributed/order_key.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::distributed {
namespace {

using Key = std::uint64_t;
using Index = std::uint64_t;
constexpr Key kNoKey = ~Key{0};

// A device array that grows on demand (its contents are not kept when it grows).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* reserve(std::size_t count) {
    if (data_ == nullptr || count > capacity_) {
      if (data_ != nullptr) cudaFree(data_);
      data_ = nullptr, capacity_ = 0;
      const std::size_t size = std::max<std::size_t>(count, 1);
      CUDA_CHECK(cudaMalloc(&data_, size * sizeof(T)));
      capacity_ = size;
    }
    return data_;
  }
  T* upload(std::span<const T> host) {
    reserve(host.size());
    if (!host.empty()) CUDA_CHECK(cudaMemcpy(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
    return data_;
  }
  std::vector<T> download(std::size_t count, std::size_t offset = 0) const {
    std::vector<T> host(count);
    if (count > 0) CUDA_CHECK(cudaMemcpy(host.data(), data_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(capacity_, other.capacity_);
  }
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

__host__ __device__ inline Key key_of(double value) {
#ifdef __CUDA_ARCH__
  const auto bits = static_cast<Key>(__double_as_longlong(value));
#else
  const auto bits = std::bit_cast<Key>(value);
#endif
  return (bits & kSignBit) != 0 ? ~bits : bits | kSignBit;
}

struct MinMax {
  Key min, max;
};
struct MinMaxOf {
  __device__ MinMax operator()(Key key) const { return {key, key}; }
};
struct MergeMinMax {
  __device__ MinMax operator()(const MinMax& a, const MinMax& b) const {
    return {a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
  }
};
constexpr MinMax kEmptyRange{kNoKey, 0};  // neutral: {~0, ~max} = {~0, ~0} when flattened

// The bucket of candidate i, as CpuLocalShard::count_buckets finds it: its interval is its
// segment's (segmented; bounds = segment starts) or the last interval whose lo is at most its
// key (bounds = the intervals' lows; the first when none).
struct BucketOfCandidate {
  const Key* keys;
  const KeyInterval* intervals;
  const std::uint64_t* bounds;
  std::uint32_t count;
  bool segmented;
  __device__ std::uint32_t operator()(Index i) const {
    const Key key = keys[i];
    const std::uint64_t probe = segmented ? i : key;
    std::uint32_t low = 0, high = count;  // upper_bound(bounds, probe)
    while (low < high) {
      const std::uint32_t middle = (low + high) / 2;
      if (bounds[middle] <= probe) low = middle + 1;
      else high = middle;
    }
    return static_cast<std::uint32_t>(detail::fast_bucket_of(intervals[low == 0 ? 0 : low - 1], key));
  }
};

// The reduce's slot of candidate i: kept bucket k -> k, single bucket s -> keeps + s, else -1.
struct SlotOfCandidate {
  BucketOfCandidate bucket;
  const std::int32_t* slot_of_bucket;
  __device__ std::int32_t operator()(Index i) const { return slot_of_bucket[bucket(i)]; }
};
struct HasSlot {
  SlotOfCandidate slot;
  __device__ bool operator()(Index i) const { return slot(i) >= 0; }
};

__global__ void gather_with_slots(const Key* keys, const Index* selected, std::uint64_t count, SlotOfCandidate slot,
                                  Key* keys_out, std::uint32_t* slots_out) {
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count; j += std::uint64_t{gridDim.x} * blockDim.x) {
    const Index i = selected[j];
    keys_out[j] = keys[i];
    slots_out[j] = static_cast<std::uint32_t>(slot(i));
  }
}

__global__ void gather_keys(const Key* keys, const Index* at, std::uint64_t count, Key* out) {
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count; j += std::uint64_t{gridDim.x} * blockDim.x)
    out[j] = keys[at[j]];
}

template <class T>
__global__ void make_keys(const T* values, std::uint64_t count, Key* keys) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count; i += std::uint64_t{gridDim.x} * blockDim.x)
    keys[i] = key_of(static_cast<double>(values[i]));
}

template <class T>
struct NanPosition {
  const T* values;
  std::uint64_t none;
  __device__ std::uint64_t operator()(Index i) const { return values[i] != values[i] ? i : none; }
};
struct Smaller {
  __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a < b ? a : b; }
};

// Cutting-plane sums over lo < key < hi, exact: counts and 128-bit sums of key differences.
struct ExactPivotSums {
  unsigned long long below, equal, above;
  Wide sum_below, sum_above;
};
struct PivotTerms {
  Key lo, hi, pivot;
  __device__ ExactPivotSums operator()(Key key) const {
    ExactPivotSums s{0, 0, 0, 0, 0};
    if (key <= lo || key >= hi) return s;
    if (key < pivot) s.below = 1, s.sum_below = pivot - key;
    else if (key > pivot) s.above = 1, s.sum_above = key - pivot;
    else s.equal = 1;
    return s;
  }
};
struct AddPivotSums {
  __device__ ExactPivotSums operator()(const ExactPivotSums& a, const ExactPivotSums& b) const {
    return {a.below + b.below, a.equal + b.equal, a.above + b.above, a.sum_below + b.sum_below, a.sum_above + b.sum_above};
  }
};
struct Inside {
  Key lo, hi;
  __device__ bool operator()(Key key) const { return key > lo && key < hi; }
};
struct InsideCount {
  Key lo, hi;
  __device__ unsigned long long operator()(Key key) const { return key > lo && key < hi ? 1ull : 0ull; }
};

unsigned grid_for(std::uint64_t count) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>((count + 255) / 256, 1, 65535));
}

class CudaLocalShard final : public LocalShard {
 public:
  explicit CudaLocalShard(std::uint64_t count) : n_(count), size_(count) { all_.reserve(count); }
  Key* keys() { return all_.get(); }

  void reset() override {
    reduced_ = false;
    size_ = n_;
    segments_.clear();
    counted_ = false;
  }

  std::uint64_t size() const override { return size_; }

  std::array<std::uint64_t, 2> key_range() const override {
    if (size_ == 0) return {kNoKey, kNoKey};
    const auto in = thrust::make_transform_iterator(current(), MinMaxOf{});
    MinMax* out = range_.reserve(1);
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(temp, bytes, in, out, static_cast<std::int64_t>(size_), MergeMinMax{}, kEmptyRange);
    });
    const MinMax range = range_.download(1)[0];
    return {range.min, ~range.max};
  }

  std::vector<std::uint64_t> sample(std::uint64_t count, std::uint64_t seed) const override {
    if (size_ == 0) return {};
    // The CPU backend's draw (the same generator and indices), gathered on the device.
    common::Random random(seed);
    std::vector<Index> at(count);
    for (Index& i : at) i = random.below(size_);
    const Index* d_at = sample_at_.upload(at);
    Key* out = sample_keys_.reserve(count);
    if (count > 0) {
      gather_keys<<<grid_for(count), 256>>>(current(), d_at, count, out);
      CUDA_CHECK_LAUNCH();
    }
    return sample_keys_.download(count);
  }

  std::vector<std::uint64_t> count_buckets(std::span<const KeyInterval> intervals, std::uint64_t buckets,
                                           bool segmented) override {
    if (intervals.empty()) throw std::logic_error("count_buckets: no intervals");
    if (buckets > UINT32_MAX) throw std::logic_error("count_buckets: more buckets than 32-bit bucket numbers");
    if (segmented && segments_.size() != intervals.size() + 1)
      throw std::logic_error("count_buckets: segments and intervals differ");
    intervals_.upload(intervals);
    if (segmented) {
      bounds_.upload(segments_);
    } else {
      std::vector<std::uint64_t> lows;
      for (const KeyInterval& interval : intervals) lows.push_back(interval.lo);
      bounds_.upload(lows);
    }
    assignment_ = {current(), intervals_.get(), bounds_.get(), static_cast<std::uint32_t>(intervals.size()), segmented};
    buckets_ = buckets;
    counted_ = true;
    local_counts_.assign(buckets, 0);
    if (size_ > 0) {
      if (size_ <= UINT32_MAX) histogram<unsigned int>();
      else histogram<unsigned long long>();
    }
    return local_counts_;
  }

  std::vector<std::uint64_t> reduce(std::span<const std::uint64_t> keep, std::span<const std::uint64_t> singles) override {
    if (!counted_) throw std::logic_error("reduce: no count_buckets since the last reset or reduce");
    counted_ = false;
    std::vector<std::int32_t> slot_of_bucket(buckets_, -1);
    for (std::size_t k = 0; k < keep.size(); ++k) slot_of_bucket[keep[k]] = static_cast<std::int32_t>(k);
    for (std::size_t s = 0; s < singles.size(); ++s) slot_of_bucket[singles[s]] = static_cast<std::int32_t>(keep.size() + s);
    const SlotOfCandidate slot{assignment_, slots_.upload(slot_of_bucket)};
    // Where each kept bucket's segment goes: its local count, as an exclusive prefix sum.
    std::vector<std::uint64_t> segments(keep.size() + 1, 0);
    for (std::size_t k = 0; k < keep.size(); ++k) segments[k + 1] = segments[k] + local_counts_[keep[k]];

    // The candidates with a slot, in their order (stable), with their slots.
    std::uint64_t selected = 0;
    if (size_ > 0) {
      Index* indices = indices_.reserve(size_);
      std::uint64_t* d_selected = selected_count_.reserve(1);
      const thrust::counting_iterator<Index> all(0);
      run_cub([&](void* temp, std::size_t& bytes) {
        return cub::DeviceSelect::If(temp, bytes, all, indices, d_selected, static_cast<std::int64_t>(size_), HasSlot{slot});
      });
      selected = selected_count_.download(1)[0];
    }
    Key* keys_by_slot = next_unsorted_.reserve(selected);
    std::uint32_t* slots = slot_values_.reserve(selected);
    std::uint32_t* sorted_slots = sorted_slots_.reserve(selected);
    Key* next = next_.reserve(selected);
    if (selected > 0) {
      gather_with_slots<<<grid_for(selected), 256>>>(current(), indices_.get(), selected, slot, keys_by_slot, slots);
      CUDA_CHECK_LAUNCH();
      // Group by slot, keeping each group's order: a stable radix sort on the slot's bits.
      const std::uint64_t slot_count = keep.size() + singles.size();
      const int bits = std::max(1, static_cast<int>(std::bit_width(slot_count - 1)));
      run_cub([&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, slots, sorted_slots, keys_by_slot, next,
                                               static_cast<std::int64_t>(selected), 0, bits);
      });
    }
    // After the kept segments: this rank's single candidates, one per single bucket at most.
    const std::uint64_t kept = segments.back();
    if (selected < kept) throw std::logic_error("reduce: fewer candidates than the counts kept");
    std::vector<std::uint64_t> found(singles.size(), 0);
    const std::vector<std::uint32_t> single_slots = sorted_slots_.download(selected - kept, kept);
    const std::vector<Key> single_keys = next_.download(selected - kept, kept);
    for (std::size_t j = 0; j < single_slots.size(); ++j) found[single_slots[j] - keep.size()] = single_keys[j];

    candidates_.swap(next_);
    segments_ = std::move(segments);
    reduced_ = true;
    size_ = kept;
    return found;
  }

  std::vector<std::uint64_t> segment_key_ranges() const override {
    std::vector<std::uint64_t> ranges;
    if (segments_.size() < 2) return ranges;
    const std::size_t count = segments_.size() - 1;
    const std::uint64_t* offsets = segment_offsets_.upload(segments_);
    MinMax* out = range_.reserve(count);
    const auto in = thrust::make_transform_iterator(candidates_.get(), MinMaxOf{});
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceSegmentedReduce::Reduce(temp, bytes, in, out, static_cast<std::int64_t>(count), offsets, offsets + 1,
                                                MergeMinMax{}, kEmptyRange);
    });
    for (const MinMax& range : range_.download(count)) {
      ranges.push_back(range.min);
      ranges.push_back(~range.max);
    }
    return ranges;
  }

  PivotSums pivot_sums(std::uint64_t lo, std::uint64_t hi, std::uint64_t pivot) const override {
    const auto in = thrust::make_transform_iterator(all_.get(), PivotTerms{lo, hi, pivot});
    ExactPivotSums* out = pivot_sums_.reserve(1);
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(temp, bytes, in, out, static_cast<std::int64_t>(n_), AddPivotSums{},
                                       ExactPivotSums{0, 0, 0, 0, 0});
    });
    const ExactPivotSums s = pivot_sums_.download(1)[0];
    return {static_cast<double>(s.below), static_cast<double>(s.equal), static_cast<double>(s.above),
            -static_cast<double>(s.sum_below), static_cast<double>(s.sum_above)};
  }

  std::vector<std::uint64_t> keys_inside(std::uint64_t lo, std::uint64_t hi) const override {
    if (n_ == 0) return {};
    // Counted first, so the output buffer is the bracket's size, not n.
    std::uint64_t* d_count = selected_count_.reserve(1);
    const auto ones = thrust::make_transform_iterator(all_.get(), InsideCount{lo, hi});
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::Sum(temp, bytes, ones, reinterpret_cast<unsigned long long*>(d_count),
                                    static_cast<std::int64_t>(n_));
    });
    const std::uint64_t count = selected_count_.download(1)[0];
    Key* out = inside_.reserve(count);
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceSelect::If(temp, bytes, all_.get(), out, d_count, static_cast<std::int64_t>(n_), Inside{lo, hi});
    });
    return inside_.download(count);
  }

 private:
  const Key* current() const { return reduced_ ? candidates_.get() : all_.get(); }

  // A CUB call twice: the size of its temporary storage, then the work.
  template <class Call>
  void run_cub(Call&& call) const {
    std::size_t bytes = 0;
    CUDA_CHECK(call(nullptr, bytes));
    CUDA_CHECK(call(cub_temp_.reserve(bytes), bytes));
  }

  template <class Counter>
  void histogram() {
    Counter* d_counts = static_cast<Counter*>(static_cast<void*>(histogram_.reserve(buckets_ * sizeof(Counter))));
    const auto samples = thrust::make_transform_iterator(thrust::counting_iterator<Index>(0), assignment_);
    const auto levels = static_cast<int>(buckets_ + 1);
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceHistogram::HistogramEven(temp, bytes, samples, d_counts, levels, std::uint32_t{0},
                                                 static_cast<std::uint32_t>(buckets_), static_cast<std::int64_t>(size_));
    });
    std::vector<Counter> counts(buckets_);
    CUDA_CHECK(cudaMemcpy(counts.data(), d_counts, buckets_ * sizeof(Counter), cudaMemcpyDeviceToHost));
    std::copy(counts.begin(), counts.end(), local_counts_.begin());
  }

  std::uint64_t n_ = 0, size_ = 0;
  DeviceBuffer<Key> all_;         // every value's key
  bool reduced_ = false;
  DeviceBuffer<Key> candidates_;  // after a reduce: the kept keys, segment by segment
  std::vector<std::uint64_t> segments_;  // segment s is candidates_[segments_[s], segments_[s+1])
  // The assignment of the last count_buckets (recomputed by reduce rather than stored per value).
  bool counted_ = false;
  BucketOfCandidate assignment_{};
  std::uint64_t buckets_ = 0;
  std::vector<std::uint64_t> local_counts_;
  DeviceBuffer<KeyInterval> intervals_;
  DeviceBuffer<std::uint64_t> bounds_;
  // Scratch.
  DeviceBuffer<std::int32_t> slots_;
  DeviceBuffer<Index> indices_;
  DeviceBuffer<Key> next_unsorted_, next_;
  DeviceBuffer<std::uint32_t> slot_values_, sorted_slots_;
  DeviceBuffer<std::byte> histogram_;
  mutable DeviceBuffer<std::byte> cub_temp_;
  mutable DeviceBuffer<MinMax> range_;
  mutable DeviceBuffer<std::uint64_t> selected_count_, segment_offsets_;
  mutable DeviceBuffer<Index> sample_at_;
  mutable DeviceBuffer<Key> sample_keys_, inside_;
  mutable DeviceBuffer<ExactPivotSums> pivot_sums_;
};

template <class T>
std::unique_ptr<LocalShard> shard_from_device(const T* d_values, std::size_t count) {
  auto shard = std::make_unique<CudaLocalShard>(count);
  if (count > 0) {
    make_keys<<<grid_for(count), 256>>>(d_values, count, shard->keys());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  return shard;
}

}  // namespace

template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard(std::span<const T> values) {
  selection::require_no_nan(values);
  DeviceBuffer<T> staging;
  return shard_from_device(staging.upload(values), values.size());
}

template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard_from_device(const T* d_values, std::size_t count) {
  if (count > 0) {  // the position of the first NaN, as require_no_nan names it
    DeviceBuffer<std::uint64_t> first;
    DeviceBuffer<std::byte> temp;
    const auto positions = thrust::make_transform_iterator(thrust::counting_iterator<Index>(0), NanPosition<T>{d_values, count});
    std::size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, positions, first.reserve(1), static_cast<std::int64_t>(count), Smaller{},
                                         std::uint64_t{count}));
    CUDA_CHECK(cub::DeviceReduce::Reduce(temp.reserve(bytes), bytes, positions, first.get(), static_cast<std::int64_t>(count),
                                         Smaller{}, std::uint64_t{count}));
    if (const std::uint64_t at = first.download(1)[0]; at < count)
      throw std::invalid_argument("input holds NaN (at 0-based position " + std::to_string(at) + ")");
  }
  return shard_from_device(d_values, count);
}

template std::unique_ptr<LocalShard> make_cuda_local_shard<float>(std::span<const float>);
template std::unique_ptr<LocalShard> make_cuda_local_shard<double>(std::span<const double>);
template std::unique_ptr<LocalShard> make_cuda_local_shard_from_device<float>(const float*, std::size_t);
template std::unique_ptr<LocalShard> make_cuda_local_shard_from_device<double>(const double*, std::size_t);

int bind_gpu_to_local_rank(Communicator& comm) {
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(comm.handle(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &local);
  int local_rank = 0;
  MPI_Comm_rank(local, &local_rank);
  MPI_Comm_free(&local);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();  // no device: leave no error behind for later checks
    return -1;
  }
  const int device = local_rank % devices;
  CUDA_CHECK(cudaSetDevice(device));
  return device;
}

}  // namespace robustfit::distributed
