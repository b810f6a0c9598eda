#include "core/storage.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#else
#include <sys/sysinfo.h>
#endif

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/block_cache.h"
#include "core/cuda/cuda_runtime.h"
#include "core/error.h"
#include "core/sanitizers.h"

namespace tg {

namespace {

constexpr size_t kAlignment = 64;  // a cache line; also enough for AVX-512 loads

struct CpuSystem {
  // Size classes are multiples of 512 B, as aligned_alloc wants (a multiple of the alignment).
  void* allocate(size_t size) const { return std::aligned_alloc(kAlignment, size); }
  void release(void* ptr) const { std::free(ptr); }
};

bool caching_by_default() {
#if TG_ADDRESS_SANITIZER
  return false;  // AddressSanitizer must see every free to catch a use after it
#else
  const char* env = std::getenv("TAPEGRAD_CPU_CACHING");
  return !(env && std::strcmp(env, "0") == 0);
#endif
}

// Never destroyed: tensors in static storage may be freed after any other static object.
BlockCache<CpuSystem>& cpu_cache() {
  static auto* cache = new BlockCache<CpuSystem>(CpuSystem{}, caching_by_default());
  return *cache;
}

// RAM plus swap: Linux's default overcommit heuristic refuses single requests above it too. In
// the lab's WebAssembly build, the most its heap may grow to.
size_t machine_memory_bytes() {
#ifdef __EMSCRIPTEN__
  return emscripten_get_heap_max();
#else
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return SIZE_MAX;
  return (static_cast<size_t>(info.totalram) + info.totalswap) * info.mem_unit;
#endif
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  for (; bytes >= 1024 && u < 6; ++u) bytes /= 1024;
  return fmt::format("{:.1f} {}", bytes, units[u]);
}

}  // namespace

Storage::Storage(size_t nbytes, Device device, const char* op) : nbytes_(nbytes), device_(device) {
  auto cannot = [&](const std::string& why) {
    return Error(op, fmt::format("cannot allocate {} bytes ({}) on {}: {}", nbytes,
                                 human_bytes(static_cast<double>(nbytes)), device.str(), why));
  };
  if (device.is_cuda()) {
    try {
      data_ = cuda_malloc(nbytes, device.index);
    } catch (const Error& e) {  // no such GPU, or out of its memory
      throw cannot(e.what());
    }
    return;
  }
  static const size_t memory = machine_memory_bytes();
  if (nbytes > memory)
    throw cannot(fmt::format("more than this machine's memory and swap ({})",
                             human_bytes(static_cast<double>(memory))));
  data_ = cpu_cache().allocate(nbytes);
  if (!data_) throw cannot("out of memory");
}

Storage::~Storage() {
  if (device_.is_cuda())
    cuda_free(data_, nbytes_, device_.index);
  else
    cpu_cache().free(data_, nbytes_);
}

MemoryStats memory_stats(Device device) {
  return device.is_cuda() ? cuda_allocator_stats(device.index) : cpu_cache().stats();
}

void empty_cache(Device device) {
  if (device.is_cuda())
    cuda_empty_cache();
  else
    cpu_cache().empty();
}

void reset_peak_memory_stats(Device device) {
  if (device.is_cuda())
    cuda_reset_peak_memory_stats(device.index);
  else
    cpu_cache().reset_peak();
}

void set_cpu_caching(bool enabled) { cpu_cache().set_caching(enabled); }
bool cpu_caching() { return cpu_cache().caching(); }

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_device.is_cpu() && src_device.is_cpu()) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  cuda_memcpy(dst, dst_device, src, src_device, nbytes);
}

}  // namespace tg
