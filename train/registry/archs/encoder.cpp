// arch encoder: a pre-LN Transformer encoder labelling every input position (train/model.h).
#include "train/registry/arch.h"

namespace tg::train {

Arch encoder_arch() {
  Arch arch;
  arch.name = "encoder";
  arch.summary = "encoder (a label per position)";
  arch.is = "a Transformer encoder";
  arch.exports_to_pytorch = true;
  arch.named_in_metadata = false;
  return arch;
}

}  // namespace tg::train
