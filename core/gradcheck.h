#pragma once
// gradcheck: compares the tape's gradients with central finite differences in float64.
//
// For y = fn(inputs) and a fixed random projection v of y's shape, the analytic gradient is
// backward(v) and the numeric one is ((f(x + eps) - f(x - eps)) . v) / (2 eps), element by
// element. Inputs that do not require grad are held constant. The result names the worst
// element: which input, its index, analytic and numeric values.
#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tg {

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-6;
  double rtol = 1e-4;
  uint64_t seed = 1234;  // for the projection v
};

struct GradcheckResult {
  bool ok = true;
  int input = -1;           // worst input (-1 when there was nothing to check)
  Shape index;              // worst element's multi-index within that input
  double analytic = 0;
  double numeric = 0;
  double error = 0;         // |analytic - numeric|
  int64_t checked = 0;      // elements compared
  std::vector<std::string> ops;  // op names on the tape of fn, in execution order
  std::string report;       // one line for humans
  explicit operator bool() const { return ok; }
};

using GradcheckFn = std::function<Tensor(const std::vector<Tensor>&)>;

// Inputs requiring grad must be float64 CPU or CUDA tensors whose elements do not overlap
// (no expanded views). They are not modified: gradcheck works on its own copies that keep
// the inputs' strides, so non-contiguous inputs are checked as non-contiguous.
GradcheckResult gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});

}  // namespace tg
