// Steady-state training allocates no tensor storage: after a warm-up step, a training step of
// a small Transformer (forward, backward, AdamW, zero_grad) takes every block from the CPU
// caching allocator, and its peak memory stays where the warm-up left it. The number of heap
// allocations (operator new: tape entries, shapes, closures) a step still makes is reported.
#include <atomic>
#include <cstdlib>
#include <new>

#include "core/allocator.h"
#include "core/sanitizers.h"
#include "optim/adam.h"
#include "test_util.h"
#include "train/model.h"

using namespace tg;

// Counts every operator new of the test binary (the other forms of new call this one in
// libstdc++). Not under AddressSanitizer, which has its own operator new.
#if !TG_ADDRESS_SANITIZER
namespace {
std::atomic<int64_t> g_heap_allocations{0};
}
void* operator new(size_t size) {
  g_heap_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC 12 at -O1 inlines these into the test and then takes the replaced pair for a mismatch.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
static int64_t heap_allocations() { return g_heap_allocations.load(); }
#else
static int64_t heap_allocations() { return -1; }  // not counted under AddressSanitizer
#endif

namespace {

struct ToyRun {  // B 4, T 16, vocab 16, d_model 32, 4 heads, ffn 64, 2 layers, dropout 0.1
  train::TransformerModel model{{.vocab_size = 16, .num_classes = 16, .max_len = 16, .d_model = 32, .heads = 4,
                                 .layers = 2, .ff = 64, .dropout = 0.1}};
  std::vector<NamedParameter> params;
  std::unique_ptr<AdamW> opt;
  Tensor inputs = randint(4, 16, 16);
  Tensor targets = randint(4, 16, 16);

  static Tensor randint(int64_t B, int64_t T, int64_t V) {
    std::vector<int64_t> ids(B * T);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 7 + 3) % V);
    return tensor_i64(ids, {B, T});
  }
  ToyRun() {
    for (auto& [name, t] : model.named_parameters()) params.push_back({name, t});
    opt = std::make_unique<AdamW>(weight_decay_groups(params), AdamWOptions{.lr = 1e-3, .weight_decay = 0.1});
    model.train();
  }
  double step() {
    Tensor loss = cross_entropy(model.forward(inputs), targets);
    loss.backward();
    opt->step();
    opt->zero_grad();
    return loss.item();
  }
};

}  // namespace

TEST_CASE("steady state: after warm-up a training step makes no new storage allocation") {
  if (!cpu_caching()) {  // switched off (TAPEGRAD_CPU_CACHING=0, AddressSanitizer): nothing to check
    MESSAGE("the CPU caching allocator is off: steady-state allocation not checked");
    return;
  }
  manual_seed(3);
  reset_peak_memory_stats();  // the peak of this model, not of the tests before
  ToyRun run;
  double first = run.step(), last = 0;
  run.step();  // the optimizer's state now exists: every size of a step has been seen
  const MemoryStats warm = memory_stats();
  const int64_t heap_before = heap_allocations();
  constexpr int kSteps = 3;
  for (int s = 0; s < kSteps; ++s) last = run.step();
  const MemoryStats after = memory_stats();
  const int64_t heap_per_step = (heap_allocations() - heap_before) / kSteps;
  MESSAGE("per steady step: ", (after.cache_hits - warm.cache_hits) / kSteps, " storage blocks from the cache, ",
          heap_per_step, " heap allocations (operator new); peak ", after.peak_in_use_bytes, " B in use");
  CHECK(after.system_allocations == warm.system_allocations);  // every block came from the cache
  CHECK(after.cache_hits > warm.cache_hits);
  CHECK(after.peak_in_use_bytes == warm.peak_in_use_bytes);
  CHECK(after.in_use_bytes == warm.in_use_bytes);  // nothing leaks from step to step
  CHECK(last < first);                             // and it does train
}
