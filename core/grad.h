#pragma once
// Gradients as values, as torch.autograd.grad: the gradients of `outputs` with respect to
// `inputs`, returned rather than added into .grad() (which no leaf's changes).
//
//   Tensor y = (x * x * x).sum();
//   Tensor dx = tg::grad({y}, {x}, {}, {.create_graph = true})[0];   // 3x^2, with its history
//   Tensor ddx = tg::grad({dx.sum()}, {x})[0];                          // 6x
//
// grad_outputs: one per output, or empty; an omitted (undefined) one means ones, for a
// one-element output only. With create_graph the backward is itself recorded (each op's
// reference rule, core/tape.h), so the result can be differentiated again, to any order;
// retain_graph defaults to create_graph. An input no output depends on is an error unless
// allow_unused, which gives it an undefined gradient.
#include <optional>

#include "core/tensor.h"

namespace tg {

struct GradOptions {
  std::optional<bool> retain_graph = {};
  bool create_graph = false;
  bool allow_unused = false;
};

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs = {},
                const GradOptions& options = {});

}  // namespace tg
