// The GPU twins of dropout_cpu.cpp. The forward draws with the same philox() as the CPU, so a
// generator state gives the same keep-mask on both devices.
#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "ops/dropout/dropout.h"

namespace tg {

namespace {

// kept = draw.keeps(i); keep = kept, out = kept ? x * scale : 0, or with relu keep = kept &&
// x > 0, out = kept ? relu(x) * scale : 0 (= writes both); with a residual (not null), out =
// residual + that.
// One thread per Philox counter c: its words decide the draw.per_counter() elements from per * c on.
template <class T>
__global__ void dropout_forward_kernel(T* out, bool* keep, const T* x, const T* residual, DropoutDraw draw, T scale,
                                       bool relu, int64_t n) {
  const auto per = static_cast<int64_t>(draw.per_counter());
  const int64_t counters = (n + per - 1) / per;
  TG_GRID_STRIDE_LOOP(c, counters) {
    const PhiloxBlock words = philox(draw.seed, draw.offset + static_cast<uint64_t>(c));
    for (int64_t j = 0, i = per * c; j < per && i < n; ++j, ++i) {
      const bool kept = draw.keeps(words, static_cast<uint64_t>(i));
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

void dropout_forward_cuda(const Tensor& out, const Tensor& keep, const Tensor& x, const DropoutDraw& draw,
                          double scale, bool relu, const Tensor& residual) {
  // out, keep, x (n), residual (n) or undefined, contiguous
  const int64_t n = x.numel();
  if (n == 0) return;
  const char* op = relu ? "relu_dropout" : residual.defined() ? "dropout_add" : "dropout";
  dispatch_floating(x.dtype(), op, [&](auto zero) {
    using T = decltype(zero);
    const auto per = static_cast<int64_t>(draw.per_counter());
    dropout_forward_kernel<<<blocks_for((n + per - 1) / per), kThreads>>>(
        out.data<T>(), keep.data<bool>(), x.data<T>(), residual.defined() ? residual.data<T>() : nullptr, draw,
        static_cast<T>(scale), relu, n);
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
