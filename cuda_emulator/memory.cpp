// The emulated GPU's memory: one large reserved address range, carved into page-aligned
// blocks with an unmapped guard page after each and never handed out twice, so a kernel that
// runs past its block, or anyone touching a freed block, faults. Live blocks are readable and
// writable only inside a DeviceAccess (a kernel, a copy, a memset); host code that touches one
// at any other time faults too, and the SIGSEGV handler names the address and its block.
// Inside a DeviceAccess a block opens when it is first touched: the fault handler makes it
// readable and writable and the access's end closes it again. A launch so costs two mprotect
// calls per block it touches, not two per live block (thousands in a training step, each
// flushing the TLB).
#include <sys/mman.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "emulator.h"

namespace tg::emu {

namespace {

constexpr size_t kAddressSpace = size_t{1} << 38;  // 256 GiB reserved, never committed up front
constexpr size_t kDeviceMemory = size_t{8} << 30;  // what cudaMalloc may hold live at once

struct Allocation {
  size_t bytes;  // as asked
  size_t mapped;  // rounded up to pages
  bool live;
};

struct Memory {
  std::mutex mutex;
  char* base = nullptr;
  size_t used = 0;        // of the address space, guard pages included
  size_t live_bytes = 0;  // mapped bytes of live blocks
  std::map<const char*, Allocation> blocks;  // by start address, freed ones kept for messages
  int access_depth = 0;
  const char* accessor = nullptr;  // the kernel or copy inside DeviceAccess, for a fault
  std::vector<std::pair<char*, size_t>> opened;  // the blocks this access has touched: start, mapped
};

Memory& memory() {
  static Memory* instance = new Memory;  // never destroyed: blocks may be freed at exit
  return *instance;
}

size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// The block holding p (live or freed), or blocks.end().
std::map<const char*, Allocation>::iterator block_of(Memory& m, const void* p) {
  const char* c = static_cast<const char*>(p);
  auto it = m.blocks.upper_bound(c);
  if (it == m.blocks.begin()) return m.blocks.end();
  --it;
  return c < it->first + it->second.mapped + page_size() ? it : m.blocks.end();
}

// Inside a DeviceAccess, opens the live block holding addr and returns true; otherwise false.
bool open_touched_block(Memory& m, const char* addr) {
  if (m.access_depth == 0) return false;
  auto it = block_of(m, addr);
  if (it == m.blocks.end() || !it->second.live || addr >= it->first + it->second.mapped) return false;
  char* start = const_cast<char*>(it->first);
  if (mprotect(start, it->second.mapped, PROT_READ | PROT_WRITE) != 0) return false;
  m.opened.emplace_back(start, it->second.mapped);
  return true;
}

struct sigaction previous_segv;

void on_segv(int signal, siginfo_t* info, void* context) {
  Memory& m = memory();
  const char* addr = static_cast<const char*>(info->si_addr);
  if (m.base && addr >= m.base && addr < m.base + kAddressSpace) {
    if (open_touched_block(m, addr)) return;  // the access runs again, now allowed
    const std::string where = describe_pointer(addr);
    if (m.accessor)
      std::fprintf(stderr, "\nCUDA emulator: %s touched %s, outside every live GPU block (out of bounds on a GPU)\n",
                   m.accessor, where.c_str());
    else
      std::fprintf(stderr, "\nCUDA emulator: host code touched GPU memory at %s; a GPU's memory must be copied "
                           "to the host first (to_device_copy / cudaMemcpy)\n", where.c_str());
  }
  // Hand the fault to whoever handled it before (doctest names the test case); returning
  // re-runs the faulting instruction under that handler.
  sigaction(SIGSEGV, &previous_segv, nullptr);
  (void)signal, (void)context;
}

// Puts on_segv in front of the current handler, unless it is there already. Called after each
// device access and allocation, because a test framework may put its own handler back per test.
void ensure_segv_handler() {
  struct sigaction current {};
  sigaction(SIGSEGV, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_segv) return;
  struct sigaction action {};
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previous_segv);
}

}  // namespace

std::string describe_pointer(const void* ptr) {
  Memory& m = memory();
  char text[160];
  auto it = block_of(m, ptr);
  if (it == m.blocks.end()) {
    std::snprintf(text, sizeof text, "%p (host memory)", ptr);
  } else {
    const size_t offset = static_cast<size_t>(static_cast<const char*>(ptr) - it->first);
    std::snprintf(text, sizeof text, "%p (byte %zu of a %s %zu-byte GPU block)", ptr, offset,
                  it->second.live ? "live" : "freed", it->second.bytes);
  }
  return text;
}

bool is_device_range(const void* ptr, size_t bytes) {
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = block_of(m, ptr);
  return it != m.blocks.end() && it->second.live &&
         static_cast<const char*>(ptr) + bytes <= it->first + it->second.bytes;
}

DeviceAccess::DeviceAccess(const char* who) {
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (m.access_depth++ == 0) {
    m.accessor = who;
    m.opened.reserve(64);  // so that the fault handler rarely allocates
    ensure_segv_handler();
  }
}

DeviceAccess::~DeviceAccess() {
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (--m.access_depth == 0) {
    for (const auto& [start, mapped] : m.opened) mprotect(start, mapped, PROT_NONE);
    m.opened.clear();
    m.accessor = nullptr;
  }
}

}  // namespace tg::emu

using tg::emu::fail;

cudaError_t cudaMalloc(void** ptr, size_t size) {
  if (!ptr) return fail(cudaErrorInvalidValue, "cudaMalloc: the result pointer is null");
  *ptr = nullptr;
  if (size == 0) return cudaSuccess;
  tg::emu::Memory& m = tg::emu::memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!m.base) {
    void* base = mmap(nullptr, tg::emu::kAddressSpace, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return fail(cudaErrorMemoryAllocation, "cudaMalloc: cannot reserve the emulated GPU's memory");
    m.base = static_cast<char*>(base);
  }
  tg::emu::ensure_segv_handler();
  const size_t page = tg::emu::page_size(), mapped = (size + page - 1) / page * page;
  if (m.live_bytes + mapped > tg::emu::kDeviceMemory || m.used + mapped + page > tg::emu::kAddressSpace)
    return fail(cudaErrorMemoryAllocation, "cudaMalloc: out of memory (" + std::to_string(size) +
                                               " bytes asked, " + std::to_string(m.live_bytes) + " in use)");
  char* start = m.base + m.used;
  m.used += mapped + page;  // the page after stays unmapped: the guard
  m.live_bytes += mapped;
  m.blocks[start] = {size, mapped, true};
  // Fresh blocks hold garbage on a GPU: fill with a NaN-like pattern, not the kernel's zeros.
  mprotect(start, mapped, PROT_READ | PROT_WRITE);
  std::memset(start, 0xFF, mapped);
  mprotect(start, mapped, PROT_NONE);  // opened when a kernel or copy touches it
  *ptr = start;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  tg::emu::Memory& m = tg::emu::memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.blocks.find(static_cast<const char*>(ptr));
  if (it == m.blocks.end() || !it->second.live)
    return fail(cudaErrorInvalidValue, "cudaFree: " + tg::emu::describe_pointer(ptr) + " is not a live cudaMalloc block");
  it->second.live = false;
  m.live_bytes -= it->second.mapped;
  void* start = const_cast<char*>(it->first);
  madvise(start, it->second.mapped, MADV_DONTNEED);
  mprotect(start, it->second.mapped, PROT_NONE);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  if (count == 0) return cudaSuccess;
  const bool dst_device = tg::emu::is_device_range(dst, count), src_device = tg::emu::is_device_range(src, count);
  const bool want_dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool want_src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind != cudaMemcpyDefault && (dst_device != want_dst_device || src_device != want_src_device))
    return fail(cudaErrorInvalidValue, "cudaMemcpy of " + std::to_string(count) + " bytes, kind " +
                                           std::to_string(kind) + ": dst " + tg::emu::describe_pointer(dst) +
                                           ", src " + tg::emu::describe_pointer(src) +
                                           " do not match the kind (or the range runs past its block)");
  tg::emu::DeviceAccess access("cudaMemcpy");
  std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  if (count == 0) return cudaSuccess;
  if (!tg::emu::is_device_range(ptr, count))
    return fail(cudaErrorInvalidValue, "cudaMemset of " + std::to_string(count) + " bytes at " +
                                           tg::emu::describe_pointer(ptr) + ": not inside one live GPU block");
  tg::emu::DeviceAccess access("cudaMemset");
  std::memset(ptr, value, count);
  return cudaSuccess;
}
