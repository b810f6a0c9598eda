#pragma once
// Backward one entry at a time, printed for a reader: what `tapegrad trace` and `tapegrad lesson`
// show. Internal to the program.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "core/tensor.h"

namespace tg::cli {

// "    what =" and t's printout below it, indented.
void print_value(std::FILE* out, const std::string& what, const Tensor& t);

// The gradient of the loss L with respect to the tensor `name`, as every output of tapegrad writes
// it (the explorer's page too, explore/page/explore.js): "dL/dx", and "dL/d(#10 mul)" for a name
// with spaces.
std::string gradient_label(const std::string& name);

// The name to print for a tensor: its id and the name the tape recorded ("" when unnamed).
using TensorLabel = std::function<std::string(int64_t id, const std::string& recorded)>;

// Runs backward from `loss` with a BackwardStepper and prints, after a line saying what dL/dx
// means (L is `loss`), each entry as it runs: the entry,
// its op's backward rule per input (TG_OP_DOC, ops/<op>/<op>.cpp), the gradient flowing in (for a
// tensor used more than once, each use's contribution and their sum) and the gradients flowing
// out to its inputs (one of how many contributions, when the tape shows the input used again).
void print_backward(std::FILE* out, const Tensor& loss, const TensorLabel& label);

}  // namespace tg::cli
