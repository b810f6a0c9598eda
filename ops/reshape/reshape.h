#pragma once
// reshape / view: the same elements in a new shape (row-major order). One dim may be -1.
//   x (s...) -> out (t...) with numel equal
// view never copies and requires a contiguous x; reshape views when it can, else copies.
// On the tape: view records "view"; reshape and flatten record "reshape" (after a
// "contiguous" entry when x is not contiguous).
// Forward formula and backward rule per input: TG_OP_DOC in ops/reshape/reshape.cpp (docs/ops.md).
#include "core/tensor.h"

namespace tg {

Tensor reshape(const Tensor& x, Shape shape);
Tensor view(const Tensor& x, Shape shape);
Tensor flatten(const Tensor& x);  // (numel,)

}  // namespace tg
