#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/dropout/dropout.h"

namespace tg {

void dropout_forward_cpu(const Tensor& out, const Tensor& keep, const Tensor& x, uint64_t seed, uint64_t offset,
                         double p, double scale) {
  // out, keep, x (n) contiguous. One Philox call gives the four words of elements 4c..4c+3,
  // i.e. word j of counter offset + c is uniform_at(seed, offset, 4c + j).
  const int64_t n = x.numel(), counters = (n + 3) / 4;
  dispatch_floating(x.dtype(), "dropout", [&](auto zero) {
    using T = decltype(zero);
    const T* in = x.data<T>();
    T* o = out.data<T>();
    bool* k = keep.data<bool>();
    const T s = static_cast<T>(scale);
#pragma omp parallel for if (n > kParallelGrain)
    for (int64_t c = 0; c < counters; ++c) {
      const PhiloxBlock words = philox(seed, offset + static_cast<uint64_t>(c));
      for (int64_t j = 0, i = 4 * c; j < 4 && i < n; ++j, ++i) {
        k[i] = uniform_from_bits(words[j]) > p;
        o[i] = k[i] ? in[i] * s : T(0);
      }
    }
  });
}

void dropout_backward_cpu(const Tensor& dx, const Tensor& keep, const Tensor& dout, double scale) {
  // dx, keep, dout (n) contiguous
  const int64_t n = dx.numel();
  dispatch_floating(dx.dtype(), "dropout", [&](auto zero) {
    using T = decltype(zero);
    T* d = dx.data<T>();
    const bool* k = keep.data<bool>();
    const T* g = dout.data<T>();
    const T s = static_cast<T>(scale);
#pragma omp parallel for simd if (n > kParallelGrain)
    for (int64_t i = 0; i < n; ++i) d[i] = k[i] ? g[i] * s : T(0);
  });
}

}  // namespace tg
