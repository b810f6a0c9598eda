#pragma once
// The few CUDA runtime services the core needs. Defined in cuda_runtime.cu when tapegrad is
// built with CUDA, and in cuda_runtime_nocuda.cpp (clear errors) otherwise, so no caller needs
// an #ifdef.
#include <cstddef>

#include "core/allocator.h"

namespace tg {

// Through the GPU's caching allocator (core/block_cache.h, stats in core/allocator.h):
// cuda_malloc takes a cached block of the rounded size when there is one; cuda_free (given the
// same nbytes) caches the block.
void* cuda_malloc(size_t nbytes, int device_index);
void cuda_free(void* ptr, size_t nbytes, int device_index);
// The full counters of the GPU's cache and their peak reset (memory_stats(Device::cuda(i)), ...).
MemoryStats cuda_allocator_stats(int device_index);
void cuda_reset_peak_memory_stats(int device_index);
void cuda_memcpy(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);
// Host memory for copies to and from a GPU: page-locked (cudaMallocHost) with a real GPU, so
// the copies run at full speed; plain memory under the emulator. Free with cuda_host_free.
void* cuda_host_alloc(size_t nbytes);
void cuda_host_free(void* ptr);
// True when cuda_host_alloc gives page-locked memory.
bool cuda_host_memory_pinned();
void cuda_synchronize();

}  // namespace tg
