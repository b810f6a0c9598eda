#pragma once
// dropout: zeroes each element with probability p and scales the survivors by 1/(1-p), so
// the expected value of every element is unchanged.
//   x (...) -> out (...) contiguous, same dtype
//   keep[i] = uniform_at(seed, offset, i) > p     (i: row-major index; offset = gen.reserve(n, 4))
//   out[i]  = keep[i] ? x[i] / (1-p) : 0
// Element i's decision depends only on (seed, offset, i): the same mask with any number of
// threads and on the GPU (the CUDA kernel calls the same philox()). Each call advances `gen`
// past the counters it used.
// training == false or p == 0: returns x itself (no copy, no tape entry, no draw).
// p == 1: every element is dropped (uniform_at is at most 1), so out = 0 and dx = 0.
// Backward (saved: keep, a bool mask, true = kept):
//   dx = keep ? grad / (1-p) : 0
#include "core/rng.h"
#include "core/tensor.h"

namespace tg {

Tensor dropout(const Tensor& x, double p, bool training, Generator& gen = default_generator());

// Kernels. out, keep (bool) and x contiguous with n elements, all on the CPU or all on one
// GPU (_cuda); scale = 1/(1-p) (0 when p == 1).
//   keep = uniform_at(seed, offset, i) > p, out = keep ? x * scale : 0   (= writes both)
void dropout_forward_cpu(const Tensor& out, const Tensor& keep, const Tensor& x, uint64_t seed, uint64_t offset,
                         double p, double scale);
void dropout_forward_cuda(const Tensor& out, const Tensor& keep, const Tensor& x, uint64_t seed, uint64_t offset,
                          double p, double scale);
//   dx = keep ? dout * scale : 0   (= writes); dx, keep, dout contiguous
void dropout_backward_cpu(const Tensor& dx, const Tensor& keep, const Tensor& dout, double scale);
void dropout_backward_cuda(const Tensor& dx, const Tensor& keep, const Tensor& dout, double scale);

}  // namespace tg
