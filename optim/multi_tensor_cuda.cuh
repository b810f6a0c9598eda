#pragma once
// One launch updates every parameter of a group (optim/adam_cuda.cu, optim/sgd_cuda.cu): the
// host lists the parameters (a descriptor each: pointers, size, per-parameter scalars) and cuts
// them into chunks of kChunk elements; both lists go to the GPU in one copy, and each block
// takes chunks by a grid-stride loop, its threads the chunk's elements.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/cuda/cuda_check.h"
#include "core/cuda/cuda_runtime.h"
#include "core/cuda/strided_cuda.cuh"
#include "optim/optimizer.h"

namespace tg {

inline constexpr int64_t kChunk = 4096;

struct TensorChunk {
  int64_t tensor;  // index into the descriptors
  int64_t start;   // first element; the chunk ends at min(start + kChunk, n)
};

// The descriptors and chunks of one launch, in one block of GPU memory (from the cache) for as
// long as this lives. Desc is trivially copyable and has an int64_t n (its element count).
template <class Desc>
class ChunkList {
 public:
  ChunkList(const std::vector<Desc>& tensors, int device_index, const char* op) : device_(device_index) {
    std::vector<TensorChunk> chunks;
    for (size_t t = 0; t < tensors.size(); ++t)
      for (int64_t start = 0; start < tensors[t].n; start += kChunk) chunks.push_back({static_cast<int64_t>(t), start});
    count_ = static_cast<int64_t>(chunks.size());
    if (count_ == 0) return;
    const size_t tensor_bytes = tensors.size() * sizeof(Desc), chunk_offset = (tensor_bytes + 15) / 16 * 16;
    bytes_ = chunk_offset + chunks.size() * sizeof(TensorChunk);
    std::vector<char> host(bytes_);
    std::memcpy(host.data(), tensors.data(), tensor_bytes);
    std::memcpy(host.data() + chunk_offset, chunks.data(), chunks.size() * sizeof(TensorChunk));
    block_ = static_cast<char*>(cuda_malloc(bytes_, device_));
    TG_CUDA_CHECK(cudaMemcpy(block_, host.data(), bytes_, cudaMemcpyHostToDevice), op);
    chunks_ = reinterpret_cast<const TensorChunk*>(block_ + chunk_offset);
  }
  ~ChunkList() {
    if (block_) cuda_free(block_, bytes_, device_);  // reused only by work queued after this launch
  }
  ChunkList(const ChunkList&) = delete;
  ChunkList& operator=(const ChunkList&) = delete;

  const Desc* tensors() const { return reinterpret_cast<const Desc*>(block_); }
  const TensorChunk* chunks() const { return chunks_; }
  int64_t count() const { return count_; }
  int blocks() const { return static_cast<int>(count_ < 65535 ? count_ : 65535); }

 private:
  int device_;
  int64_t count_ = 0;
  size_t bytes_ = 0;
  char* block_ = nullptr;
  const TensorChunk* chunks_ = nullptr;
};

// `updates` split by (GPU, dtype), in order: each part is one launch.
inline std::vector<std::vector<const ParamUpdate*>> launch_parts(const std::vector<ParamUpdate>& updates) {
  std::vector<std::vector<const ParamUpdate*>> parts;
  for (const ParamUpdate& u : updates) {
    auto it = std::find_if(parts.begin(), parts.end(), [&](const std::vector<const ParamUpdate*>& part) {
      return part[0]->param.tensor.device() == u.param.tensor.device() &&
             part[0]->param.tensor.dtype() == u.param.tensor.dtype();
    });
    if (it == parts.end())
      parts.push_back({&u});
    else
      it->push_back(&u);
  }
  return parts;
}

// f(desc, i) for every element i of every chunk this thread has (device code).
template <class Desc, class F>
__device__ void for_each_chunk_element(const Desc* tensors, const TensorChunk* chunks, int64_t count, F f) {
  for (int64_t c = blockIdx.x; c < count; c += gridDim.x) {
    const Desc& t = tensors[chunks[c].tensor];
    const int64_t start = chunks[c].start, end = start + kChunk < t.n ? start + kChunk : t.n;
    for (int64_t i = start + threadIdx.x; i < end; i += blockDim.x) f(t, i);
  }
}

}  // namespace tg
