#pragma once
// dropout: zeroes each element with probability p and scales the survivors by 1/(1-p), so
// the expected value of every element is unchanged.
//   x (...) -> out (...) contiguous, same dtype
//   keep[i] = draw.keeps(i): (d_i + 1) / 2^bits > p, d_i element i's draw of `bits` random bits
//             (i: row-major index; draw = reserve_dropout(gen, n, p), DropoutDraw of core/rng.h)
//   out[i]  = keep[i] ? x[i] / (1-p) : 0
// Element i's decision depends only on (seed, offset, bits, i): the same mask with any number of
// threads and on the GPU (the CUDA kernel calls the same philox()). Each call advances `gen`
// past the counters it used.
// training == false or p == 0: returns x itself (no copy, no tape entry, no draw).
// p == 1: every element is dropped ((d + 1) / 2^bits is at most 1), so out = 0 and dx = 0.
// Forward formula and backward rule per input: TG_OP_DOC in ops/dropout/dropout.cpp (docs/ops.md).
// Saved: keep, a bool mask (true = kept).
#include "core/rng.h"
#include "core/tensor.h"

namespace tg {

Tensor dropout(const Tensor& x, double p, bool training, Generator& gen = default_generator());

// dropout with the keep-mask given, not drawn: to reproduce another framework's draw, or to
// work an example by hand. Recorded as "dropout" too (saved: keep), with the same backward.
//   x (...) floating, keep (...) bool, x's shape and device -> out (...) contiguous, x's dtype
//   out[i] = keep[i] ? x[i] / (1-p) : 0        p in [0, 1): it sets only the scale
Tensor dropout(const Tensor& x, const Tensor& keep, double p);

// The draw of a dropout of n elements with probability p, its counters reserved from gen. Its
// bits follow this thread's numerics version (core/numerics.h): from version 3 on, 16 where p is
// in [2^-8, 1 - 2^-8], where the expected kept fraction is then within 2^-16 of 1 - p (0.4% of
// it at most), so one philox() call decides 8 elements; 32 elsewhere and before version 3.
DropoutDraw reserve_dropout(Generator& gen, uint64_t n, double p);

// Shared with relu_dropout and dropout_add (ops/fused/): the errors for a bad x or p, naming `op`;
// the op itself once it draws (training, p > 0): the mask, the kernels below and the tape entry
// "dropout", or with relu "relu_dropout"; and what dropout's rules compute, keep ? t * scale : 0
// for contiguous t (a new tensor), and that factor itself as a tensor of `dtype`.
void check_dropout_args(const Tensor& x, double p, const char* op);
Tensor dropout_drawn(const Tensor& x, double p, Generator& gen, bool relu);
Tensor masked_scaled(const Tensor& t, const Tensor& keep, double scale);
Tensor keep_factor(const Tensor& keep, double scale, DType dtype);

// Kernels. out, keep (bool) and x contiguous with n elements, all on the CPU or all on one
// GPU (_cuda); scale = 1/(1-p) (0 when p == 1).
//   kept = draw.keeps(i)
//   relu false: keep = kept,           out = kept ? x * scale : 0         (= writes both)
//   relu true:  keep = kept && x > 0,  out = kept ? relu(x) * scale : 0   (relu_dropout)
//   residual defined (contiguous, x's shape): out = residual + that, in the same pass, with the
//   bits of the two ops on the CPU (dropout_add)
void dropout_forward_cpu(const Tensor& out, const Tensor& keep, const Tensor& x, const DropoutDraw& draw, double scale,
                         bool relu, const Tensor& residual = {});
void dropout_forward_cuda(const Tensor& out, const Tensor& keep, const Tensor& x, const DropoutDraw& draw,
                          double scale, bool relu, const Tensor& residual = {});
//   dx = keep ? dout * scale : 0   (= writes); dx, keep, dout contiguous. With a given mask the
//   forward is the same product: out = keep ? x * scale : 0.
void dropout_backward_cpu(const Tensor& dx, const Tensor& keep, const Tensor& dout, double scale);
void dropout_backward_cuda(const Tensor& dx, const Tensor& keep, const Tensor& dout, double scale);

// Pieces of the float32 kernels above, for fused ops (ops/fused/dropout_add_layer_norm), with the
// same bits:
//   dropout_forward_f32_team: dropout_forward_cpu's draw for p < 1 (!draw.keeps_nothing()),
//     out and keep (n) = writes, as a worksharing loop: inside a parallel region the team
//     shares its chunks (an orphaned `omp for`, ending at a barrier); outside one, the calling
//     thread does them all
//   masked_scaled_f32: out = residual + (keep ? x * scale : 0) over `count` elements, the mask given
//     (residual null: dropout's values, or its backward; else dropout_add's sum), on this thread
void dropout_forward_f32_team(float* out, uint8_t* keep, const float* x, const float* residual, int64_t n,
                              const DropoutDraw& draw, float scale, bool relu);
void masked_scaled_f32(float* out, const uint8_t* keep, const float* x, const float* residual, int64_t count,
                       float scale);

}  // namespace tg
