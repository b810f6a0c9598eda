#pragma once
// Hooks: functions that backward (a tensor's gradient hooks) or a module's forward (nn/module.h)
// calls with what passes through, for looking at it or, for gradients, replacing it.
//
//   Tensor h = relu(x);
//   h.retain_grad();                                    // h.grad() is kept after backward
//   HookHandle clip = h.register_hook([](const Tensor& g) { return clamp_somehow(g); });
//   loss.backward();
//   clip.remove();
//
// When a gradient hook runs (as PyTorch's Tensor.register_hook):
//   non-leaf tensor  once per backward, on its whole gradient (every use's contribution summed),
//                    just before the entry that produced it runs its rule
//   leaf             on each gradient before it is added into .grad()
// A hook returns its replacement for the gradient (same shape and dtype) or an undefined Tensor
// to keep it. Hooks run in registration order, each on the previous one's result; a retained
// gradient is the result of them all.
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace tg {

class Tensor;
struct TensorImpl;

using GradHook = std::function<Tensor(const Tensor& grad)>;

// Removes the hook it was returned for; does nothing once removed or when the owner is gone.
class HookHandle {
 public:
  HookHandle() = default;
  explicit HookHandle(std::function<void()> remove) : remove_(std::move(remove)) {}
  void remove() {
    if (remove_) std::exchange(remove_, nullptr)();
  }

 private:
  std::function<void()> remove_;
};

// What a tensor asked backward to do with its gradient. Held by the tensor and, for a non-leaf,
// by the tape entry that produced it (Entry::output_hooks), which is where backward finds it.
struct TensorHooks {
  std::vector<std::pair<uint64_t, GradHook>> hooks;  // {id for removal, hook}, in registration order
  uint64_t next_id = 0;
  bool retain_grad = false;          // a non-leaf keeps its gradient in .grad()
  std::weak_ptr<TensorImpl> tensor;  // where a retained gradient goes (the entry must not own it)
};

}  // namespace tg
