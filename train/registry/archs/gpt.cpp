// arch gpt: a decoder-only language model, GPT-2's shape (train/model.h).
#include "train/registry/arch.h"

namespace tg::train {

Arch gpt_arch() {
  Arch arch;
  arch.name = "gpt";
  arch.summary = "gpt (decoder-only, GPT-2's shape)";
  arch.is = "a decoder-only language model";
  arch.causal = true;
  arch.ties_weights = true;
  arch.learned_positions = true;
  arch.activation = nn::Activation::gelu;
  arch.exports_to_pytorch = true;
  return arch;
}

}  // namespace tg::train
