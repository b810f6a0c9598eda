#include "ops/common/index_check.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "ops/common/contiguous_input.h"

namespace tg {

int64_t check_indices(const Tensor& idx, int64_t limit, const char* op, const char* what,
                      const std::string& context, std::optional<int64_t> skip) {
  check_defined(idx, op, what);
  if (idx.dtype() != kI64)
    throw Error(op, fmt::format("{} must be int64, got {} {}", what, dtype_name(idx.dtype()), shape_str(idx.shape())));
  const Tensor c = idx.is_cuda() ? to_device_copy(idx, kCPU) : contiguous_or_copy(idx);
  const int64_t* p = c.data<int64_t>();
  const int64_t n = c.numel();
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {  // serial: the error names the first bad element
    if (skip && p[i] == *skip) continue;
    if (p[i] < 0 || p[i] >= limit) {
      Shape position(c.dim());
      for (int64_t d = c.dim() - 1, rest = i; d >= 0; --d) {
        position[d] = rest % c.size(d);
        rest /= c.size(d);
      }
      throw Error(op, fmt::format("{} {} at position ({}) is out of range {}", what, p[i], fmt::join(position, ","),
                                  context));
    }
    ++kept;
  }
  return kept;
}

}  // namespace tg
