// Kernel launches on the CPU. A block's threads run one after another, each until it ends or
// waits (at __syncthreads or a warp shuffle); a thread that waits keeps its own fiber (stack),
// and the next thread starts on a new one. When every thread has ended or waits, the waits
// are settled: a warp's shuffle once every lane of its mask is there, __syncthreads once every
// thread of the block is. Anything else (a thread that returned while others wait at a
// barrier, lanes at different barriers) is the hang or undefined result it would be on a GPU,
// and fails the launch with a message that names the kernel, the block and the threads.
// Errors, as on a GPU, come back from the next cudaGetLastError.
#include <boost/context/fiber.hpp>
#include <boost/context/pooled_fixedsize_stack.hpp>

#include <deque>
#include <stdexcept>
#include <vector>

#include "emulator.h"

namespace tg::emu {

namespace {

namespace ctx = boost::context;

enum class Wait { running, block, warp, done };

struct Thread {
  ThreadContext context;
  Wait wait = Wait::running;
  int fiber = -1;          // the fiber that runs it
  unsigned warp_mask = 0;  // at a warp barrier: the lanes that take part
  int source = 0;          // and the lane whose word it wants
  uint64_t sent = 0, received = 0;
};

struct Fiber {
  ctx::fiber self;  // to resume it (held by the scheduler)
  ctx::fiber back;  // to return to the scheduler (held inside the fiber)
};

// Thrown inside a waiting thread when its block is given up, to unwind its fiber.
struct Abandoned {};

struct Block {
  const std::function<void()>* body;
  std::vector<Thread> threads;
  size_t next_unstarted = 0;
  std::deque<Fiber> fibers;  // a deque: a new fiber never moves the others
  bool abandoned = false;
  std::string error;  // the first thread's exception
};

struct Runtime {
  cudaError_t last_error = cudaSuccess;          // for cudaGetLastError
  cudaError_t described_error = cudaSuccess;     // and the error `description` belongs to
  std::string description;
};
thread_local Runtime runtime;
thread_local uint64_t launches = 0;
thread_local Block* current_block = nullptr;
thread_local Thread* current = nullptr;

ctx::pooled_fixedsize_stack& stacks() {
  thread_local ctx::pooled_fixedsize_stack pool(256 * 1024);
  return pool;
}

std::string thread_name(const Thread& t) {
  const uint3& i = t.context.thread_idx;
  return "(" + std::to_string(i.x) + "," + std::to_string(i.y) + "," + std::to_string(i.z) + ")";
}

std::string block_name(const Block& b) {
  const uint3& i = b.threads.front().context.block_idx;
  return "block (" + std::to_string(i.x) + "," + std::to_string(i.y) + "," + std::to_string(i.z) + ")";
}

// Runs thread after thread on this fiber until one waits (then the scheduler starts another
// fiber for the next) or none is left.
void fiber_main(Block& b, int index) {
  while (!b.abandoned && b.next_unstarted < b.threads.size()) {
    Thread& t = b.threads[b.next_unstarted++];
    t.fiber = index;
    current = &t;
    try {
      (*b.body)();
    } catch (const Abandoned&) {
    } catch (const std::exception& e) {
      if (b.error.empty()) b.error = "thread " + thread_name(t) + " threw: " + e.what();
      b.abandoned = true;
    }
    t.wait = Wait::done;
  }
}

void resume(Block& b, Thread& t) {
  t.wait = Wait::running;
  current = &t;
  Fiber& f = b.fibers[static_cast<size_t>(t.fiber)];
  f.self = std::move(f.self).resume();
}

void start_fiber(Block& b) {
  const int index = static_cast<int>(b.fibers.size());
  Fiber& f = b.fibers.emplace_back();
  f.self = ctx::fiber(std::allocator_arg, stacks(), [&b, index](ctx::fiber&& back) {
    b.fibers[static_cast<size_t>(index)].back = std::move(back);
    fiber_main(b, index);
    return std::move(b.fibers[static_cast<size_t>(index)].back);
  });
  f.self = std::move(f.self).resume();
}

// Called by a thread: hands control back to the scheduler until its wait is settled.
void wait_as(Wait kind) {
  Block& b = *current_block;
  Thread& t = *current;
  t.wait = kind;
  Fiber& f = b.fibers[static_cast<size_t>(t.fiber)];
  f.back = std::move(f.back).resume();
  if (b.abandoned) throw Abandoned{};
}

int lane_of(const Thread& t) { return static_cast<int>(t.context.thread_idx.x % warpSize); }

// Settles the shuffles of one warp whose lanes (from `first`, at most 32 threads) all ended or
// wait: the exchange happens when every lane in the mask waits at a shuffle. Returns the
// threads to resume (none if the warp's lanes are elsewhere), or throws on a broken rule.
std::vector<Thread*> settle_warp(Block& b, size_t first) {
  const size_t end = std::min(first + warpSize, b.threads.size());
  const Thread* asker = nullptr;
  for (size_t i = first; i < end && !asker; ++i)
    if (b.threads[i].wait == Wait::warp) asker = &b.threads[i];
  if (!asker) return {};
  const unsigned mask = asker->warp_mask;
  std::vector<Thread*> lanes(warpSize, nullptr);
  for (size_t i = first; i < end; ++i) {
    Thread& t = b.threads[i];
    const bool in_mask = (mask >> lane_of(t)) & 1u;
    if (t.wait == Wait::warp && t.warp_mask != mask)
      throw std::runtime_error("warp shuffle: threads " + thread_name(*asker) + " and " + thread_name(t) +
                               " of one warp give different masks");
    if (in_mask && t.wait != Wait::warp)
      throw std::runtime_error("warp shuffle: thread " + thread_name(*asker) + " waits for thread " + thread_name(t) +
                               ", which " + (t.wait == Wait::done ? "returned" : "waits at __syncthreads"));
    if (in_mask) lanes[static_cast<size_t>(lane_of(t))] = &t;
  }
  std::vector<Thread*> released;
  for (Thread* t : lanes) {
    if (!t) continue;
    const Thread* from = t->source >= 0 && t->source < warpSize ? lanes[static_cast<size_t>(t->source)] : nullptr;
    if (!from)
      throw std::runtime_error("warp shuffle: thread " + thread_name(*t) + " reads lane " + std::to_string(t->source) +
                               ", which is not in the mask or not in the block");
    t->received = from->sent;
    released.push_back(t);
  }
  return released;
}

// Every thread has ended or waits: the threads whose wait can end now, in order.
std::vector<Thread*> settle(Block& b) {
  for (size_t first = 0; first < b.threads.size(); first += warpSize) {
    std::vector<Thread*> lanes = settle_warp(b, first);
    if (!lanes.empty()) return lanes;
  }
  std::vector<Thread*> at_barrier;
  const Thread* returned = nullptr;
  for (Thread& t : b.threads) {
    if (t.wait == Wait::block) at_barrier.push_back(&t);
    if (t.wait == Wait::done && !returned) returned = &t;
  }
  if (!at_barrier.empty() && returned)
    throw std::runtime_error("__syncthreads reached by " + std::to_string(at_barrier.size()) + " of " +
                             std::to_string(b.threads.size()) + " threads: thread " + thread_name(*returned) +
                             " had returned (a barrier inside a branch that differs across the block?)");
  return at_barrier;
}

void run_block(Block& b) {
  current_block = &b;
  try {
    for (;;) {
      if (b.next_unstarted < b.threads.size()) {
        start_fiber(b);
      } else {
        const std::vector<Thread*> ready = settle(b);
        if (ready.empty()) break;  // every thread has returned
        for (Thread* t : ready) {
          resume(b, *t);
          if (b.abandoned) break;
        }
      }
      if (b.abandoned) break;
    }
  } catch (const std::exception& e) {
    b.error = e.what();
  }
  // Unwind the fibers still waiting (their threads throw Abandoned) before their stacks go.
  b.abandoned = b.abandoned || !b.error.empty();
  for (Thread& t : b.threads)
    if (t.wait == Wait::block || t.wait == Wait::warp) resume(b, t);
  current_block = nullptr;
  current = nullptr;
}

bool valid(dim3 d, unsigned max_x, unsigned max_y, unsigned max_z) {
  return d.x >= 1 && d.y >= 1 && d.z >= 1 && d.x <= max_x && d.y <= max_y && d.z <= max_z;
}

}  // namespace

cudaError_t fail(cudaError_t error, const std::string& message) {
  runtime.last_error = error;
  runtime.described_error = error;
  runtime.description = message;
  return error;
}

const ThreadContext& current_thread() {
  if (!current) throw std::logic_error("CUDA emulator: threadIdx, blockIdx, blockDim or gridDim read outside a kernel");
  return current->context;
}

void syncthreads() { wait_as(Wait::block); }

uint64_t warp_exchange(unsigned mask, uint64_t word, int source) {
  Thread& t = *current;
  t.warp_mask = mask;
  t.sent = word;
  t.source = source;
  wait_as(Wait::warp);
  return t.received;
}

void fail_launch(const char* kernel, const std::string& why) {
  fail(cudaErrorLaunchFailure, std::string("kernel ") + kernel + ": " + why);
}

uint64_t launch_count() { return launches; }

void run_grid(const char* kernel, dim3 grid, dim3 block, const std::function<void()>& thread_body) {
  ++launches;
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (!valid(block, 1024, 1024, 64) || threads > 1024 || !valid(grid, 0x7fffffffu, 65535, 65535)) {
    fail(cudaErrorInvalidConfiguration,
         std::string("kernel ") + kernel + ": invalid launch configuration: grid (" + std::to_string(grid.x) + "," +
             std::to_string(grid.y) + "," + std::to_string(grid.z) + "), block (" + std::to_string(block.x) + "," +
             std::to_string(block.y) + "," + std::to_string(block.z) + ")");
    return;
  }
  DeviceAccess access(kernel);
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        Block b{.body = &thread_body, .threads = std::vector<Thread>(threads), .fibers = {}, .error = {}};
        for (unsigned i = 0; i < threads; ++i) {
          ThreadContext& c = b.threads[i].context;
          c.thread_idx = {i % block.x, i / block.x % block.y, i / (block.x * block.y)};
          c.block_idx = {bx, by, bz};
          c.block_dim = block;
          c.grid_dim = grid;
        }
        run_block(b);
        if (!b.error.empty()) return fail_launch(kernel, block_name(b) + ": " + b.error);
      }
}

}  // namespace tg::emu

using tg::emu::fail;

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return fail(cudaErrorInvalidValue, "cudaGetDeviceCount: the result pointer is null");
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device != 0)
    return fail(cudaErrorInvalidDevice, "cudaSetDevice(" + std::to_string(device) + "): the emulator has one GPU, 0");
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }  // every launch and copy has finished

cudaError_t cudaGetLastError() {
  const cudaError_t error = tg::emu::runtime.last_error;
  tg::emu::runtime.last_error = cudaSuccess;
  return error;
}

const char* cudaGetErrorString(cudaError_t error) {
  if (error == tg::emu::runtime.described_error && !tg::emu::runtime.description.empty())
    return tg::emu::runtime.description.c_str();
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
  }
  return "unknown error";
}
