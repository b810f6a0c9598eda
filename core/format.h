#pragma once
// Printing tensors like PyTorch: fmt::print("{}", t) gives
//   tensor([[ 1.0000, -2.5000],
//           [ 0.0000,  3.1416]], dtype=float32, requires_grad=true)
// Large tensors show the first and last 3 entries of each dim around "...".
#include <string>

#include <fmt/format.h>

#include "core/tensor.h"

namespace tg {

std::string to_string(const Tensor& t);

}  // namespace tg

template <> struct fmt::formatter<tg::Tensor> : fmt::formatter<std::string_view> {
  auto format(const tg::Tensor& t, format_context& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<std::string_view>::format(tg::to_string(t), ctx);
  }
};
