#pragma once
// Device: where a tensor's storage lives. cpu always; cuda:N when tapegrad is built with CUDA.
#include <cstdint>
#include <string>

namespace tg {

struct Device {
  enum class Kind : unsigned char { cpu, cuda };
  Kind kind = Kind::cpu;
  int index = 0;

  static Device cpu() { return {}; }
  static Device cuda(int index = 0) { return {Kind::cuda, index}; }
  bool is_cpu() const { return kind == Kind::cpu; }
  bool is_cuda() const { return kind == Kind::cuda; }
  bool operator==(const Device&) const = default;
  std::string str() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index); }
};

inline const Device kCPU = Device::cpu();

// True when tapegrad was compiled with its CUDA backend (a GPU may still be absent).
bool cuda_built();
// Number of usable GPUs; 0 when not built with CUDA or when the driver reports none.
int cuda_device_count();
// True when the "GPU" is the CUDA emulator (TAPEGRAD_CUDA=EMULATE, cuda_emulator/): the CUDA
// kernels then run on the CPU, to test them, not to be fast.
bool cuda_emulated();

// GPU memory goes through a caching allocator (core/cuda/cuda_runtime.cu): a freed block is
// kept, in a bucket of its rounded size, for the next request of that bucket, so a training
// step that allocates the same sizes every time stops calling cudaMalloc after the first one.
struct CudaMemoryStats {
  int64_t driver_allocations = 0;  // blocks obtained from cudaMalloc
  int64_t cache_hits = 0;          // requests served from a freed block instead
  int64_t in_use_bytes = 0;        // held by live tensors (rounded sizes)
  int64_t cached_bytes = 0;        // freed, kept for reuse
};
// The counters of cuda:device_index since the start (all zero without CUDA or a GPU).
CudaMemoryStats cuda_memory_stats(int device_index = 0);
// Returns every cached (freed) block of every GPU to the driver; live tensors are untouched.
void cuda_empty_cache();

}  // namespace tg
