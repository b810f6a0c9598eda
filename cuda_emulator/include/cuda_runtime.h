#pragma once
// The CUDA emulator's stand-in for the toolkit's cuda_runtime.h (docs/design.md, "The CUDA
// emulator"). With -DTAPEGRAD_CUDA=EMULATE, tapegrad's .cu files are compiled by the host C++
// compiler with this header forced in first, as nvcc forces in the real one, and every
// `kernel<<<grid, block>>>(args)` rewritten to `::tg::emu::launch(...)(args)`
// (rewrite_launches.cmake). A launch then runs every thread of every block on the CPU, one
// fiber per thread that waits at a barrier, so __syncthreads and warp shuffles mean what they
// mean on a GPU, and a kernel that breaks their rules fails with a message instead of hanging.
//
// It exists so that the CUDA code runs somewhere before it first meets a GPU. It checks what a
// GPU would (launch bounds, barrier and shuffle participation, device pointers passed to
// kernels and copies, host code touching device memory); it does not model timing, the memory
// model of concurrent threads or float intrinsics, so passing here is not passing on a GPU.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

// --- the runtime API (the part tapegrad calls) --------------------------------------------

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorLaunchFailure = 719,
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
using cudaStream_t = struct CUstream_st*;

struct uint3 {
  unsigned int x = 0, y = 0, z = 0;
};
struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
  constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemset(void* ptr, int value, size_t count);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
const char* cudaGetErrorString(cudaError_t error);

template <class T>
cudaError_t cudaMalloc(T** ptr, size_t size) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), size);
}

// --- device code ----------------------------------------------------------------------------

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
// One copy per kernel instantiation and host thread; the emulator runs one block at a time on
// a host thread, so that copy is the block's. Unlike a GPU's it is zeroed once, not per block.
#define __shared__ static thread_local

inline constexpr int warpSize = 32;

// CUDA's math functions are global and overloaded for float and double, like std::'s.
using std::erf, std::exp, std::expm1, std::fabs, std::fmax, std::fmin, std::isfinite, std::isinf, std::isnan,
    std::log, std::log1p, std::pow, std::sqrt, std::tanh;

namespace tg::emu {

// The thread being run: its indices and its launch's dimensions.
struct ThreadContext {
  uint3 thread_idx, block_idx;
  dim3 block_dim, grid_dim;
};
const ThreadContext& current_thread();

void syncthreads();
// Lane `source`'s 8-byte word to every lane of `mask` that asks (all of them must ask).
uint64_t warp_exchange(unsigned mask, uint64_t word, int source_of_mine);

template <class T>
T shuffle(unsigned mask, T value, int source) {
  static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable_v<T>);
  uint64_t word = 0;
  std::memcpy(&word, &value, sizeof(T));
  word = warp_exchange(mask, word, source);
  std::memcpy(&value, &word, sizeof(T));
  return value;
}

// How many kernels this host thread has launched (those refused for a host pointer argument
// not counted), for tests.
uint64_t launch_count();

// The emulated GPU's memory: [ptr, ptr + bytes) inside one live cudaMalloc block?
bool is_device_range(const void* ptr, size_t bytes);

// Runs `thread_body` (which calls the kernel with the launch's arguments) once per thread of
// the grid; checks the configuration and each pointer argument first. Errors are returned by
// the next cudaGetLastError, as a GPU reports them.
void run_grid(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& thread_body);
void fail_launch(const char* kernel, const std::string& why);

template <class Body>
struct Launch {
  const char* kernel;
  Body body;
  dim3 grid, block;

  template <class... Args>
  void operator()(Args&&... args) const {
    std::tuple<std::decay_t<Args>...> values(std::forward<Args>(args)...);
    int index = 0;
    bool host_pointer = false;
    std::apply([&](const auto&... a) { ((host_pointer = host_pointer || !device_argument(a, index++)), ...); }, values);
    if (host_pointer) return;
    run_grid(kernel, grid, block, [&] {
      auto copy = values;  // each thread has its own copy of the arguments, as on a GPU
      std::apply(body, std::move(copy));
    });
  }

  // A pointer argument must be null or point into GPU memory.
  template <class A>
  bool device_argument(const A& a, int index) const {
    if constexpr (std::is_pointer_v<A>) {
      if (a != nullptr && !is_device_range(a, 0)) {
        fail_launch(kernel, "argument " + std::to_string(index) + " is a pointer to host memory");
        return false;
      }
    }
    return true;
  }
};

template <class Body>
Launch<Body> launch(const char* kernel, Body body, dim3 grid, dim3 block, size_t /*shared_bytes*/ = 0,
                    cudaStream_t /*stream*/ = nullptr) {
  return {kernel, std::move(body), grid, block};
}

}  // namespace tg::emu

#define threadIdx (::tg::emu::current_thread().thread_idx)
#define blockIdx (::tg::emu::current_thread().block_idx)
#define blockDim (::tg::emu::current_thread().block_dim)
#define gridDim (::tg::emu::current_thread().grid_dim)

inline void __syncthreads() { ::tg::emu::syncthreads(); }

template <class T>
T __shfl_sync(unsigned mask, T value, int source_lane, int width = warpSize) {
  const int lane = static_cast<int>(threadIdx.x % warpSize);
  return ::tg::emu::shuffle(mask, value, lane - lane % width + source_lane % width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = warpSize) {
  const int lane = static_cast<int>(threadIdx.x % warpSize);
  const int source = lane ^ lane_mask;
  return ::tg::emu::shuffle(mask, value, source / width == lane / width ? source : lane);
}

// Threads switch only at barriers, so a read-modify-write is atomic here.
template <class T>
T atomicAdd(T* address, T value) {
  const T old = *address;
  *address = old + value;
  return old;
}
