#include "core/checkpoint.h"

#include <utility>

#include <fmt/format.h>

#include "core/grad.h"
#include "core/grad_mode.h"
#include "core/numerics.h"
#include "core/rng.h"
#include "core/tape.h"

namespace tg {

namespace {

std::string saved_input_name(size_t i) { return fmt::format("input{}", i); }

// Puts the default generator at `state` for a scope, then back where it was.
class GeneratorAt {
 public:
  explicit GeneratorAt(const Generator& state) : previous_(default_generator()) { default_generator() = state; }
  ~GeneratorAt() { default_generator() = previous_; }
  GeneratorAt(const GeneratorAt&) = delete;
  GeneratorAt& operator=(const GeneratorAt&) = delete;

 private:
  Generator previous_;
};

// What the forward kept for the backward: fn, the generator and the numerics version as fn found
// them, and the params.
struct Recompute {
  CheckpointFunction fn;
  Generator generator_at_forward;
  int64_t numerics_at_forward = kLatestNumerics;
  size_t num_inputs = 0;
  TensorList params;  // those requiring grad: the entry's inputs after the first num_inputs

  // The gradients of the entry's inputs (inputs, then params): fn run again, differentiated.
  TensorList operator()(const BackwardContext& ctx) const {
    const bool create_graph = ctx.create_graph();
    TensorList inputs;
    for (size_t i = 0; i < num_inputs; ++i) {
      Tensor x = ctx.saved(saved_input_name(i));
      // Without a graph to create, fn starts again from a copy without history, where tg::grad stops.
      if (!create_graph && x.defined()) {
        x = x.detach();
        if (ctx.needs_grad(static_cast<int>(i))) x.requires_grad_();
      }
      inputs.push_back(std::move(x));
    }
    TensorList outputs;
    {
      GradModeGuard grad_mode(true);
      GeneratorAt generator(generator_at_forward);
      NumericsGuard numerics_guard(numerics_at_forward);
      outputs = fn(inputs);
    }
    if (outputs.size() != ctx.entry().outputs.size())
      throw Error("checkpoint", fmt::format("fn returned {} outputs when run again in the backward, {} in the forward: "
                                            "it must compute the same function each time", outputs.size(),
                                            ctx.entry().outputs.size()));
    TensorList roots, root_grads;
    for (size_t o = 0; o < outputs.size(); ++o)
      if (outputs[o].requires_grad()) {
        roots.push_back(outputs[o]);
        root_grads.push_back(ctx.grad(static_cast<int>(o)));
      }
    TensorList grads(ctx.entry().inputs.size()), wrt;
    std::vector<size_t> wrt_index;
    for (size_t i = 0; i < grads.size(); ++i)
      if (ctx.needs_grad(static_cast<int>(i))) {
        wrt.push_back(i < num_inputs ? inputs[i] : params[i - num_inputs]);
        wrt_index.push_back(i);
      }
    if (roots.empty() || wrt.empty()) return grads;
    const TensorList found = grad(roots, wrt, root_grads, {.create_graph = create_graph, .allow_unused = true});
    for (size_t k = 0; k < found.size(); ++k) grads[wrt_index[k]] = found[k];
    return grads;
  }
};

}  // namespace

TensorList checkpoint(const CheckpointFunction& fn, const TensorList& inputs, const TensorList& params,
                      std::string_view wraps) {
  if (!fn) throw Error("checkpoint", "fn is empty: pass the function to run");
  const Generator generator_at_forward = default_generator();
  TensorList outputs;
  {
    NoGradGuard no_grad;
    outputs = fn(inputs);
  }
  // New handles: an output that is one of the inputs (fn returned it) must not become the entry's
  // output in the input's place.
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (!outputs[o].defined())
      throw Error("checkpoint", fmt::format("output {} of fn{} is undefined: fn must return tensors", o,
                                            wraps.empty() ? "" : fmt::format(" ({})", wraps)));
    outputs[o] = outputs[o].detach();
  }

  TensorList recorded = inputs, trained;
  for (const Tensor& p : params)
    if (p.defined() && p.requires_grad()) trained.push_back(p);
  recorded.insert(recorded.end(), trained.begin(), trained.end());
  Recorder rec("checkpoint", recorded, outputs);
  if (!rec) return outputs;
  if (!wraps.empty()) rec.attr("wraps", wraps);
  for (size_t i = 0; i < inputs.size(); ++i) rec.save(saved_input_name(i), inputs[i]);
  rec.backward(Recompute{fn, generator_at_forward, numerics(), inputs.size(), std::move(trained)});
  return outputs;
}

}  // namespace tg
