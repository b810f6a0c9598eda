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
// (..., C) -> (rows, C), rows the product of the leading sizes: what reshape(x, {-1, C}) means,
// also where a size is 0 (there -1 is ambiguous). x of rank >= 1.
Tensor flatten_rows(const Tensor& x);

}  // namespace tg
