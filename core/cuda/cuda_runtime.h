#pragma once
// The few CUDA runtime services the core needs. Defined in cuda_runtime.cu when tapegrad is
// built with CUDA, and in cuda_runtime_nocuda.cpp (clear errors) otherwise, so no caller needs
// an #ifdef.
#include <cstddef>

#include "core/device.h"

namespace tg {

// Through the caching allocator (see CudaMemoryStats in core/device.h): cuda_malloc takes a
// cached block of the rounded size when there is one; cuda_free caches the block, never throws.
void* cuda_malloc(size_t nbytes, int device_index);
void cuda_free(void* ptr, int device_index);
void cuda_memcpy(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);
void cuda_synchronize();

}  // namespace tg
