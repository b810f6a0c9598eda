#pragma once
// Decoding and scoring a Seq2SeqModel: each input is encoded once, then the decoder runs on the
// whole prefix <bos> y1 .. yt for every new token (no key/value cache: outputs are short), and
// train/beam_search.h picks the tokens. Only the output tokens and <eos> may be written (never
// <pad>, <unk>, <bos>, <mask>); an output has at most the model's max_len - 1 tokens. Inputs and
// outputs are text in the tokenizer's form (data/seq2seq_tokenizer.h): characters, or word tokens
// joined by its separator.
//
// Scores on input/output pairs:
//   exact match     the share of pairs whose decoded output is the target
//   token accuracy  the share of target positions, its closing <eos> included, where the decoded
//                   output followed by <eos> has the same token
//   loss            teacher-forced cross entropy per target token (<eos> included)
#include <cstdint>
#include <string>
#include <vector>

#include "data/seq2seq_tasks.h"
#include "data/seq2seq_tokenizer.h"
#include "train/metrics_log.h"
#include "train/seq2seq_model.h"

namespace tg::train {

struct DecodeOptions {
  int64_t beam = 0;         // 0: greedy, decoding batch_size inputs together; K >= 1: beam search of width K
  int64_t batch_size = 64;  // inputs per greedy batch, and pairs per teacher-forced batch
};

inline constexpr int64_t kMaxBeam = 64;

// The decoded output of every input. A token the tokenizer lacks, or an input longer than the
// model's max_len, throws naming the input and the token or limit.
std::vector<std::string> decode_inputs(Seq2SeqModel& model, const data::PairTokenizer& tokenizer,
                                       const std::vector<std::string>& inputs, const DecodeOptions& options = {});

// The scores above on `pairs` (evaluation mode, nothing recorded); `outputs`, when given, gets
// the decoded outputs. step is left 0.
EvalMetrics evaluate_seq2seq(Seq2SeqModel& model, const data::PairTokenizer& tokenizer,
                             const std::vector<data::Seq2SeqPair>& pairs, const DecodeOptions& options = {},
                             std::vector<std::string>* outputs = nullptr);

}  // namespace tg::train
