#pragma once
// layer_norm: normalises every row of x over its trailing dims (PyTorch's F.layer_norm).
//   x (..., normalized_shape), weight/bias (normalized_shape) optional -> out like x
//   N = numel of the leading dims (rows), C = numel(normalized_shape)
//   mean = sum_c x[n,c] / C,  rstd = 1 / sqrt(sum_c (x[n,c] - mean)^2 / C + eps)   (biased variance)
//   norm = (x - mean) * rstd,  out = norm * weight + bias
// mean and rstd have x's leading dims (shape () when x has no leading dims); they are saved.
// Forward formula and backward rule per input: TG_OP_DOC in ops/layer_norm/layer_norm.cpp (docs/ops.md);
// without a weight, w = 1.
#include <array>
#include <functional>

#include "core/tensor.h"

namespace tg {

Tensor layer_norm(const Tensor& x, Shape normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);

// Shared with the fused ops that end with it (ops/fused/): the errors for bad arguments, naming
// `op` and the arguments by `names` (x, weight, bias: theirs may differ); and
// layer_norm's rules written with tapegrad ops (differentiable again), for x normalised over its
// last k dims: out's tangent for the tangents of x (defined), weight and bias (undefined: zero),
// and the gradients {dx, dweight, dbias} for out's gradient g (each where `wanted`).
void check_layer_norm_args(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                           double eps, const char* op, std::array<const char*, 3> names = {"x", "weight", "bias"});
Tensor layer_norm_tangent(const Tensor& x, const Tensor& tx, const Tensor& weight, const Tensor& tweight,
                          const Tensor& tbias, int64_t k, double eps);
TensorList layer_norm_reference_grads(const Tensor& x, const Tensor& g, const Tensor& weight,
                                      const Shape& normalized_shape, std::array<bool, 3> wanted, double eps);

// What a fused op (ops/fused/dropout_add_layer_norm) adds to the float32 CPU kernels, to run in
// their parallel region instead of opening its own:
//   before (forward): called by each thread of the team before any row of x is read (x may be
//     what it writes); an orphaned `omp for` in it shares its loop among them
//   x_row (backward): row n of x (C floats) made into `row`, where x is not kept (x undefined)
//   dx_row (backward): called with row n of dx once it is final
// The other dtypes do not look at it (the fused op runs its kernels one after the other there).
struct LayerNormFusion {
  std::function<void()> before = {};
  std::function<void(int64_t n, float* row)> x_row = {};
  std::function<void(int64_t n, const float* dx_row)> dx_row = {};
};

// Kernels; every tensor contiguous, all on the CPU or all on one GPU (_cuda); weight, bias
// undefined = none.
// out (N,C), mean/rstd (N) = writes; mean and variance of each row in two passes (in double for
// float64; for float32 in float, in loops that vectorise).
void layer_norm_forward_cpu(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                            const Tensor& weight, const Tensor& bias, int64_t N, int64_t C, double eps,
                            const LayerNormFusion& fused = {});
void layer_norm_forward_cuda(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                             const Tensor& weight, const Tensor& bias, int64_t N, int64_t C, double eps);
// dx (N,C), dweight (C), dbias (C) = writes; an undefined one is not computed. Parallel over
// rows for dx and over columns for dweight/dbias (each column sums its rows in order: no
// races, and the same result with any number of threads). On the GPU: one block per row for
// dx, one thread per column for dweight/dbias. add_dx: dx += instead (on the CPU), with the bits
// of writing dx and adding it afterwards: a backward rule adding into a gradient already gathered.
void layer_norm_backward_cpu(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& mean,
                             const Tensor& rstd, const Tensor& dout, const Tensor& x, const Tensor& weight,
                             int64_t N, int64_t C, bool add_dx = false, const LayerNormFusion& fused = {});
void layer_norm_backward_cuda(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& mean,
                              const Tensor& rstd, const Tensor& dout, const Tensor& x, const Tensor& weight,
                              int64_t N, int64_t C);

// The float32 CPU kernels as work that a team shares, for a fused op that runs them in another
// kernel's parallel region (a product's: ops/fused/linear_dropout_add_layer_norm) instead of one
// of their own; the bits are the kernels' above, on any number of threads.
//   layer_norm_forward_part_f32: thread `thread` of `threads` normalises its share of the rows
//     (out, x (N,C), mean/rstd (N); w, b (C) or null)
//   LayerNormBackwardTeam: layer_norm_backward_cpu's work for its arguments; run(thread, threads)
//     by each thread of the team makes dx's rows and the column sums' partial sums of its share of
//     the rows, finish() once after them all writes dweight and dbias
void layer_norm_forward_part_f32(float* out, float* mean, float* rstd, const float* x, const float* w, const float* b,
                                 int64_t N, int64_t C, float eps, int thread, int threads);
class LayerNormBackwardTeam {
 public:
  LayerNormBackwardTeam(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& mean,
                        const Tensor& rstd, const Tensor& dout, const Tensor& x, const Tensor& weight, int64_t N,
                        int64_t C, bool add_dx = false, LayerNormFusion fused = {});
  void run(int thread, int threads) const;
  void finish() const;

 private:
  Tensor dx_, dweight_, dbias_, dout_, x_, weight_, mean_, rstd_;
  Tensor dx_scratch_, x_rows_, partial_;  // a row per thread (each where needed); (blocks, 2, C)
  int64_t N_, C_;
  LayerNormFusion fused_;
};

}  // namespace tg
