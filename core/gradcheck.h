#pragma once
// gradcheck: compares the tape's gradients with central finite differences, as PyTorch's
// gradcheck / gradgradcheck and JAX's check_grads(order=2, modes=("fwd", "rev")).
//
//   gradcheck      reverse mode: for y = fn(inputs) and a fixed random projection v of y's
//                  shape, backward(v) against ((f(x + eps) - f(x - eps)) . v) / (2 eps), element
//                  by element;
//   gradgradcheck  second order: gradcheck of each first gradient, taken with create_graph
//                  (so through every op's reference rule, core/tape.h);
//   check_forward_ad      forward mode: tg::jvp along a random tangent t against
//                         (f(x + eps t) - f(x - eps t)) / (2 eps);
//   check_fwd_over_rev    the jvp of a gradient (forward over reverse) against the same finite
//                         difference of the gradient.
// Inputs that do not require grad are held constant. The result names the worst element:
// which input (or output), its index, analytic and numeric values.
//
// Tolerances by the inputs' dtype, used unless an option sets them (kDefaultTolerances):
//   float64: eps 1e-6, atol 1e-6, rtol 1e-4. A central difference's truncation error is
//            ~eps^2 |f'''| ~ 1e-12 and its rounding error ~1e-16 |f| / eps ~ 1e-10: both far
//            below atol, which leaves room for sums of a few hundred terms.
//   float32: eps 1e-3, atol 1e-2, rtol 1e-2. Rounding is ~6e-8 |f| / eps ~ 1e-4 per evaluation
//            and truncation ~1e-6; a gradient summed over ~100 float32 terms carries ~1e-5
//            relative error of its own. atol and rtol sit two orders above the sum of both, as
//            PyTorch's float32 gradcheck does (its OpInfo tolerances are 1e-2 to 1e-3).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tg {

struct Tolerances {
  double eps, atol, rtol;
};
// The table above; throws for a dtype that is not float32 or float64.
Tolerances default_tolerances(DType dtype);

struct GradcheckOptions {
  std::optional<double> eps = {}, atol = {}, rtol = {};  // unset: default_tolerances(dtype of the inputs)
  uint64_t seed = 1234;  // for the projections and tangents
  bool check_forward_ad = false;    // gradcheck also runs check_forward_ad
  bool check_fwd_over_rev = false;  // gradcheck also runs check_fwd_over_rev
};

struct GradcheckResult {
  bool ok = true;
  int input = -1;           // worst input (-1 when there was nothing to check); the output for forward mode
  Shape index;              // worst element's multi-index within that input (or output)
  double analytic = 0;
  double numeric = 0;
  double error = 0;         // |analytic - numeric|
  int64_t checked = 0;      // elements compared
  std::vector<std::string> ops;  // op names on the tape of fn, in execution order
  std::string report;       // one line for humans
  explicit operator bool() const { return ok; }
};

using GradcheckFn = std::function<Tensor(const std::vector<Tensor>&)>;

// Inputs requiring grad must be float32 or float64 (all the same), CPU or CUDA, whose elements
// do not overlap (no expanded views). They are not modified: the checks work on their own copies
// that keep the inputs' strides, so non-contiguous inputs are checked as non-contiguous.
GradcheckResult gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});
GradcheckResult gradgradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                              const GradcheckOptions& options = {});
GradcheckResult check_forward_ad(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                                 const GradcheckOptions& options = {});
GradcheckResult check_fwd_over_rev(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                                   const GradcheckOptions& options = {});

}  // namespace tg
