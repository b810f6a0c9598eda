#include "core/grad.h"

#include <fmt/format.h>

#include "core/backward.h"

namespace tg {

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs,
                const GradOptions& options) {
  if (inputs.empty()) throw Error("grad", "inputs is empty: name the tensors to differentiate with respect to");
  for (size_t i = 0; i < inputs.size(); ++i) {
    check_defined(inputs[i], "grad", "an input");
    if (!inputs[i].requires_grad())
      throw Error("grad", fmt::format("input {} {} does not require grad, so it has no gradient", i,
                                      inputs[i].describe()));
  }
  BackwardStepper stepper(outputs, grad_outputs,
                          {.retain_graph = options.retain_graph, .create_graph = options.create_graph,
                           .capture = inputs});
  stepper.run();
  TensorList grads = stepper.captured();
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i].defined() && !options.allow_unused)
      throw Error("grad", fmt::format("input {} {} was not used to compute the outputs; pass allow_unused to "
                                      "get an undefined gradient for it", i, inputs[i].describe()));
  return grads;
}

}  // namespace tg
