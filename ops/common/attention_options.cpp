#include "ops/common/attention_options.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/factories.h"

namespace tg {

Tensor causal_mask(int64_t T, int64_t S, Device device) {
  if (S < 0) S = T;
  if (T < 0) throw Error("causal_mask", fmt::format("negative size T={}", T));
  std::vector<bool> values(T * S);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < S; ++j) values[i * S + j] = j > i;
  return tensor_bool(values, {T, S}, device);
}

Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t T, Device device) {
  const int64_t B = static_cast<int64_t>(lengths.size());
  std::vector<bool> values(B * T);
  for (int64_t b = 0; b < B; ++b) {
    if (lengths[b] < 0 || lengths[b] > T)
      throw Error("padding_mask", fmt::format("length {} of sequence {} is outside 0..{}", lengths[b], b, T));
    for (int64_t t = 0; t < T; ++t) values[b * T + t] = t >= lengths[b];
  }
  return tensor_bool(values, {B, T}, device);
}

}  // namespace tg
