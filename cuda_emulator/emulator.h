#pragma once
// What the CUDA emulator's parts (memory.cpp, launch.cpp, cublas.cpp) share; not for .cu code.
#include <cstddef>
#include <string>

#include "cuda_runtime.h"

namespace tg::emu {

// Records an error for the next cudaGetLastError (and its text for cudaGetErrorString);
// returns `error` so a runtime call can `return fail(...)`.
cudaError_t fail(cudaError_t error, const std::string& message);

// While one lives, kernels and copies may touch GPU memory; otherwise every live cudaMalloc
// block is inaccessible, so host code that dereferences a device pointer stops at once with a
// message (SIGSEGV) instead of reading memory that a GPU would not give it.
class DeviceAccess {
 public:
  explicit DeviceAccess(const char* who);  // `who`: the kernel or copy, for a fault's message
  ~DeviceAccess();
  DeviceAccess(const DeviceAccess&) = delete;
  DeviceAccess& operator=(const DeviceAccess&) = delete;
};

// "ptr (N bytes into a live M-byte GPU block)" or "ptr (host memory)", for messages.
std::string describe_pointer(const void* ptr);

}  // namespace tg::emu
