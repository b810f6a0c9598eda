#pragma once
// The pieces that EncoderLayer, DecoderLayer and their stacks share, written as PyTorch's
// TransformerEncoderLayer / TransformerDecoderLayer write them (see their headers):
//   residual            x + dropout(block(norm(x))) (pre-LN, norm_first)  or  norm(x + dropout(block(x)))
//                       (post-LN): the block's last linear layer, the dropout and the sum one op
//                       (Linear::forward_dropout_add), post-LN with the norm too
//                       (Linear::forward_dropout_add_norm); where the block's last layer runs alone
//                       (a hooked attention), the dropout and the sum (Dropout::forward_added_to),
//                       post-LN with the norm (LayerNorm::forward_of_dropout_add)
//   attention_block     _sa_block / _mha_block without their dropout: attention(x, memory, memory).output,
//                       out_proj not yet applied (MultiHeadAttention::forward_to_out_proj)
//   feed_forward_block  _ff_block without its last dropout: linear2(dropout(activation(linear1(x)))),
//                       linear2 not yet applied
//   stack_layers        the layers.0, layers.1, ... of a TransformerEncoder / TransformerDecoder
// and the checks of the masks that the Transformer modules take by PyTorch's names (tgt_mask,
// memory_mask, src_mask, *_key_padding_mask), each error naming the module and the argument.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "nn/dropout.h"
#include "nn/feed_forward.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/module_list.h"
#include "nn/multi_head_attention.h"

namespace tg::nn {

// x (B,T,E) -> (B,T,E)
Tensor residual(const Tensor& x, const LayerNorm& norm, bool norm_first, const Dropout& dropout,
                const std::function<LinearOutput(const Tensor&)>& block);

// query (B,T,E), memory (B,S,E) -> (B,T,E); the attention's weights are not computed.
LinearOutput attention_block(const MultiHeadAttention& attention, const Tensor& query, const Tensor& memory,
                       const MhaOptions& masks);

// x (B,T,E) -> linear1 (B,T,FF) -> activation, dropout (one linear_relu_dropout op when fuse_relu_dropout)
//   -> linear2 (B,T,E)
LinearOutput feed_forward_block(const Tensor& x, const Linear& linear1, Activation activation, const Dropout& dropout,
                          bool fuse_relu_dropout, const Linear& linear2);

// num_layers layers made by make(), appended to `layers` and to a new ModuleList (children "0",
// "1", ...) that the caller registers as "layers". Throws tg::Error(module, ...) unless
// num_layers > 0.
template <class Layer>
std::shared_ptr<ModuleList> stack_layers(const char* module, int64_t num_layers,
                                         const std::function<std::shared_ptr<Layer>()>& make,
                                         std::vector<std::shared_ptr<Layer>>& layers) {
  if (num_layers <= 0) throw Error(module, fmt::format("num_layers must be positive, got {}", num_layers));
  auto list = std::make_shared<ModuleList>();
  for (int64_t i = 0; i < num_layers; ++i) layers.push_back(list->push_back(make()));
  return list;
}

// An attention mask argument (`arg`, e.g. "tgt_mask") for the scores (B,NH,T,S): bool (true =
// masked out) or x's floating dtype (added to the scores); (T,S), PyTorch's (B*NH,T,S), or a
// shape that broadcasts to (B,NH,T,S). `dims` spells T and S for the message ("T,T", "T,S").
// An undefined mask passes.
void check_attention_mask(const char* module, const char* arg, const Tensor& mask, const Tensor& x,
                          const Shape& scores, const char* dims);
// A key padding mask (`arg`): bool (B,S), true = that key is padding; `dims` spells it ("B,S").
void check_key_padding_mask(const char* module, const char* arg, const Tensor& mask, int64_t B, int64_t S,
                            const char* dims);
// Puts a checked mask into options: a bool one as attn_mask, a floating one as additive_mask.
void set_attention_mask(MhaOptions& options, const Tensor& mask);

}  // namespace tg::nn
