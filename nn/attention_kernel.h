#pragma once
// Which kernel computes attention, fused or composed, decided in one place
// (choose_attention_kernel, called by nn::MultiHeadAttention::forward, through which every
// module's attention goes), and the one call that runs the kernel a checked call was checked
// for (run_attention).
#include "nn/attention.h"
#include "ops/common/attention_spec.h"

namespace tg::nn {

// What the choice depends on; designated initializers name each at the call.
struct AttentionKernelWish {
  bool fused = true;                         // MhaOptions::fused: the caller lets the fused op run
  bool composed_module = false;              // Module::is_composed(): the module is on the teaching path
  bool need_weights = false;                 // the caller wants the (T,S) weights back
  bool additive_mask_requires_grad = false;  // the additive mask is to get a gradient
};

AttentionKernel choose_attention_kernel(const AttentionKernelWish& wish);

// The spec's kernel on its q, k, v: weights only from the composed one, when need_weights.
AttentionResult run_attention(const AttentionSpec& spec);

}  // namespace tg::nn
