// arch seq2seq: an encoder-decoder writing an output of its own length (train/seq2seq_model.h),
// with sizes of its own for the flags a fresh run does not give.
#include "train/registry/arch.h"

namespace tg::train {

TrainConfig seq2seq_defaults() {
  TrainConfig c;
  c.arch = "seq2seq";
  c.task = "addition";
  c.d_model = 64;
  c.heads = 4;
  c.layers = 2;
  c.ff = 256;
  c.steps = 2000;
  c.batch_size = 64;
  c.lr = 3e-3;
  c.warmup = 100;
  c.eval_every = 500;
  return c;
}

Arch seq2seq_arch() {
  Arch arch;
  arch.name = "seq2seq";
  arch.summary = "seq2seq (encoder-decoder, 2000 steps by default)";
  arch.is = "an encoder-decoder";
  arch.decodes_sequences = true;
  arch.causal = false;
  arch.defaults = seq2seq_defaults;
  return arch;
}

}  // namespace tg::train
