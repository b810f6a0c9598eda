// The GPU twins of dropout_cpu.cpp. The forward draws with the same philox() as the CPU, so a
// generator state gives the same keep-mask on both devices.
#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "ops/dropout/dropout.h"

namespace tg {

namespace {

// kept = uniform_at(seed, offset, i) > p; keep = kept, out = kept ? x * scale : 0, or with
// relu keep = kept && x > 0, out = kept ? relu(x) * scale : 0 (= writes both); with a residual
// (not null), out = residual + that.
// One thread per Philox counter c: its four words decide elements 4c..4c+3.
template <class T>
__global__ void dropout_forward_kernel(T* out, bool* keep, const T* x, const T* residual, uint64_t seed,
                                       uint64_t offset, double p, T scale, bool relu, int64_t n) {
  const int64_t counters = (n + 3) / 4;
  TG_GRID_STRIDE_LOOP(c, counters) {
    const PhiloxBlock words = philox(seed, offset + static_cast<uint64_t>(c));
    for (int64_t j = 0, i = 4 * c; j < 4 && i < n; ++j, ++i) {
      const bool kept = uniform_from_bits(words[j]) > p;
      const T v = relu && x[i] <= T(0) ? T(0) : x[i];  // relu: NaN stays NaN
      keep[i] = kept && (!relu || x[i] > T(0));
      const T dropped = kept ? v * scale : T(0);
      out[i] = residual ? residual[i] + dropped : dropped;
    }
  }
}

// dx = keep ? dout * scale : 0 (= writes), one thread per element.
template <class T>
__global__ void dropout_backward_kernel(T* dx, const bool* keep, const T* dout, T scale, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) dx[i] = keep[i] ? dout[i] * scale : T(0);
}

}  // namespace

void dropout_forward_cuda(const Tensor& out, const Tensor& keep, const Tensor& x, uint64_t seed, uint64_t offset,
                          double p, double scale, bool relu, const Tensor& residual) {
  // out, keep, x (n), residual (n) or undefined, contiguous
  const int64_t n = x.numel();
  if (n == 0) return;
  const char* op = relu ? "relu_dropout" : residual.defined() ? "dropout_add" : "dropout";
  dispatch_floating(x.dtype(), op, [&](auto zero) {
    using T = decltype(zero);
    dropout_forward_kernel<<<blocks_for((n + 3) / 4), kThreads>>>(
        out.data<T>(), keep.data<bool>(), x.data<T>(), residual.defined() ? residual.data<T>() : nullptr, seed, offset,
        p, static_cast<T>(scale), relu, n);
  });
  TG_CUDA_CHECK_LAUNCH(op);
}

void dropout_backward_cuda(const Tensor& dx, const Tensor& keep, const Tensor& dout, double scale) {
  // dx, keep, dout (n) contiguous
  const int64_t n = dx.numel();
  if (n == 0) return;
  dispatch_floating(dx.dtype(), "dropout", [&](auto zero) {
    using T = decltype(zero);
    dropout_backward_kernel<<<blocks_for(n), kThreads>>>(dx.data<T>(), keep.data<bool>(), dout.data<T>(),
                                                         static_cast<T>(scale), n);
  });
  TG_CUDA_CHECK_LAUNCH("dropout");
}

}  // namespace tg
