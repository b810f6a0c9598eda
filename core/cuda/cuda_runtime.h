#pragma once
// The few CUDA runtime services the core needs. Defined in cuda_runtime.cu when tapegrad is
// built with CUDA, and in no_cuda.cpp (clear errors) otherwise, so no caller needs an #ifdef.
#include <cstddef>

#include "core/device.h"

namespace tg {

void* cuda_malloc(size_t nbytes, int device_index);
void cuda_free(void* ptr, int device_index);
void cuda_memcpy(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);
void cuda_synchronize();

}  // namespace tg
