#include "core/non_finite.h"

#include <cmath>

#include "core/copy.h"
#include "core/dispatch.h"

namespace tg {

NonFinite first_non_finite(const Tensor& t) {
  if (all_finite(t)) return {};
  const Tensor host = contiguous_copy(to_device_copy(t, Device::cpu()));
  return dispatch_floating(host.dtype(), "first_non_finite", [&](auto zero) -> NonFinite {
    using T = decltype(zero);
    const T* values = host.data<T>();
    for (int64_t i = 0; i < host.numel(); ++i)
      if (!std::isfinite(values[i])) return {i, static_cast<double>(values[i])};
    return {};
  });
}

}  // namespace tg
