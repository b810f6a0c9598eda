#pragma once
// An architecture of `tapegrad train` (--arch), described once: what its model is and which
// options it takes. Each arch is one file in train/registry/archs/ and one line of
// train/registry/registered.def; the tasks it trains are those that name it (task.h).
// Code that differs by arch asks this description (arch.decodes_sequences, arch.ties_weights,
// ...), never the arch's name.
#include <functional>
#include <optional>
#include <string>

#include "nn/encoder_layer.h"
#include "train/config.h"

namespace tg::train {

struct Arch {
  std::string name;     // "encoder": --arch and the config's "arch"
  std::string summary;  // --help: "encoder (a label per position)"
  std::string is;       // refusals: "seq2seq is <an encoder-decoder>: it needs --task ..."

  // true: an encoder-decoder (train/seq2seq_model.h) that decodes an output sequence token by
  // token: trained by the Trainer through Seq2SeqTask on Seq2SeqData, scored by decoding,
  // sampled with greedy or beam search. false: a TransformerModel (train/model.h) with a label
  // per input position, trained through SequenceTask on TaskData, which eval, explore, report
  // and export read.
  bool decodes_sequences = false;
  std::optional<bool> causal;      // fixed by the arch (gpt: true, seq2seq: false); else the task's
  bool ties_weights = false;       // --tie-weights: the head may be the token embedding
  bool learned_positions = false;  // GPT-2's embeddings: learned positions, N(0, 0.02^2) tables, no pad row
  nn::Activation activation = nn::Activation::relu;
  bool exports_to_pytorch = false;  // train/tapegrad_model.py has this architecture
  // The checkpoint's model metadata names the arch (and tie_weights); false keeps the default
  // arch's metadata as it was written before there were other archs.
  bool named_in_metadata = true;

  // A fresh run's config for the flags not given (`train --arch seq2seq` takes its own sizes).
  std::function<TrainConfig()> defaults = [] { return TrainConfig{}; };
};

}  // namespace tg::train
