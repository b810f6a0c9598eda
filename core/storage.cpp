#include "core/storage.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/cuda/cuda_runtime.h"

namespace tg {

namespace {
constexpr size_t kAlignment = 64;  // a cache line; also enough for AVX-512 loads
}

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  if (device.is_cuda()) {
    data_ = cuda_malloc(nbytes, device.index);
    return;
  }
  size_t rounded = (std::max<size_t>(nbytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  data_ = std::aligned_alloc(kAlignment, rounded);
  if (!data_) throw std::bad_alloc();
}

Storage::~Storage() {
  if (device_.is_cuda())
    cuda_free(data_, device_.index);
  else
    std::free(data_);
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_device.is_cpu() && src_device.is_cpu()) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  cuda_memcpy(dst, dst_device, src, src_device, nbytes);
}

}  // namespace tg
