#pragma once
// cross_entropy: softmax over the class dim, then the negative log-likelihood of the target
// class (log-softmax + NLL fused in one numerically stable kernel).
//   logits (..., C), target (...) int64 on logits' device -> out () for mean/sum, (...) for none
//
// The class dim is LAST. PyTorch puts it second, (N, C, d...), for inputs of more than 2 dims;
// a Transformer's logits are (B, T, V), so class-last takes them as they are, with no
// transpose. For 1-D and 2-D logits, (C) / (N, C), the two layouts agree.
//
// Per position n (a row of C logits x, target t), with eps = label_smoothing:
//   lse     = m + log(sum_c exp(x_c - m)),  m = max_c x_c        (the max keeps exp finite)
//   q_c     = (1 - eps) [c == t] + eps / C                        (PyTorch's label smoothing)
//   loss[n] = -sum_c q_c log softmax(x)_c = lse - (1 - eps) x_t - (eps / C) sum_c x_c
// Positions with t == ignore_index have loss 0 (and zero gradient). Other targets must lie in
// [0, C). Reduction: none keeps loss (...); sum adds it up; mean divides the sum by the number
// of non-ignored targets. When every target is ignored, mean gives 0 with a zero gradient
// (PyTorch gives NaN, 0/0): a batch of padding should not poison training.
// Forward formula and backward rule per input: TG_OP_DOC in ops/cross_entropy/cross_entropy.cpp (docs/ops.md).
#include <cstdint>

#include "core/tensor.h"
#include "ops/common/loss_reduction.h"

namespace tg {

struct CrossEntropyOptions {
  Reduction reduction = Reduction::mean;
  int64_t ignore_index = -100;
  double label_smoothing = 0;  // eps in [0, 1]
};

Tensor cross_entropy(const Tensor& logits, const Tensor& target, CrossEntropyOptions opts = {});

// Kernels, over N rows of C classes (targets already checked), all tensors on the CPU or all
// on one GPU (_cuda):
// loss (N) = per-row loss, 0 where ignored (= writes); lse (N) = per-row logsumexp (= writes);
// logits (N, C) and target (N) contiguous.
void cross_entropy_forward_cpu(const Tensor& loss, const Tensor& lse, const Tensor& logits, const Tensor& target,
                               int64_t ignore_index, double label_smoothing);
void cross_entropy_forward_cuda(const Tensor& loss, const Tensor& lse, const Tensor& logits, const Tensor& target,
                                int64_t ignore_index, double label_smoothing);
// dlogits (N, C) = dloss[n] * scale * (softmax(logits[n]) - q) (= writes), 0 on ignored rows;
// dloss is (N) contiguous, or one element used for every row; lse (N) from the forward.
void cross_entropy_backward_cpu(const Tensor& dlogits, const Tensor& dloss, const Tensor& lse, const Tensor& logits,
                                const Tensor& target, double scale, int64_t ignore_index, double label_smoothing);
void cross_entropy_backward_cuda(const Tensor& dlogits, const Tensor& dloss, const Tensor& lse, const Tensor& logits,
                                 const Tensor& target, double scale, int64_t ignore_index, double label_smoothing);

}  // namespace tg
