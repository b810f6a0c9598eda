#pragma once
// The data of a sequence-to-sequence run (arch seq2seq): input/output pairs from a shipped task
// (data/seq2seq_tasks.h: addition, number_words, sort_unique) or a user file (task file:
// data/seq2seq_file.h), one PairTokenizer for both sides (data/seq2seq_tokenizer.h: characters, the
// word tokens of a run with a token separator, or a BPE tokenizer's), and teacher-forcing batches.
//
// Teacher forcing: the decoder reads the target shifted right behind <bos> and learns to write
// it followed by the end-of-sequence token. The reserved token <sep> is that end token (kEosId):
//   output "357":  tgt_in  <bos> 3 5 7         tgt_out  3 5 7 <sep>
// so a target of n tokens takes n + 1 decoder positions.
//
// Training pairs: a shipped task draws pair i from Generator(seed) at offset i * 2^20 (a fresh pair
// for every index, as the encoder's synthetic tasks); a file's training pairs are visited in a
// random order per epoch (Generator(seed) at offset epoch * 2^32). Validation: a shipped task's
// val_examples pairs from another seed; a file's val_data, or a val_fraction share of it.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "core/tensor.h"
#include "data/seq2seq_tasks.h"
#include "data/seq2seq_tokenizer.h"
#include "data/vocab.h"
#include "train/checkpoint.h"
#include "train/config.h"

namespace tg::train {

inline constexpr int64_t kEosId = data::kSepId;  // ends every output

// The positions the model needs for a task's pairs: the longest input, and the longest output + 1.
int64_t seq2seq_positions(int64_t max_input_chars, int64_t max_output_chars);

// The most bytes a token separator (TrainConfig::token_sep) may have.
inline constexpr size_t kMaxTokenSepBytes = 16;
// Why `token_sep` cannot separate tokens (more than kMaxTokenSepBytes bytes, a tab or line break,
// invalid UTF-8), or "" when it can.
std::string token_sep_problem(std::string_view token_sep);
// The token separator of a fresh run when none is given: a space when the config reads a pair file
// of token lists (data/seq2seq_file.h) without a tokenizer, so that word tokens print apart; else
// config.token_sep.
std::string default_token_sep(const TrainConfig& config);

struct Seq2SeqData {
  data::PairTokenizer tokenizer;           // both sides
  std::function<data::Seq2SeqPair(Generator&)> draw;  // a shipped task: draws a training pair
  std::vector<data::Seq2SeqPair> train;    // a file's training pairs (empty for a shipped task)
  std::vector<data::Seq2SeqPair> val;
  int64_t max_len = 0;                     // seq2seq_positions of every pair
  uint64_t seed = 0;

  // The training pairs of batch `index` (0, 1, ...) of batch_size pairs.
  std::vector<data::Seq2SeqPair> training_batch(int64_t index, int64_t batch_size) const;
  // Batches per epoch of a file's training pairs; 0 for a shipped task (every batch is new).
  int64_t batches_per_epoch(int64_t batch_size) const;

 private:
  mutable int64_t cached_epoch_ = -1;  // the epoch whose order of the training pairs cached_order_ holds
  mutable std::vector<int64_t> cached_order_;
};

// Reads the files the config names (relative paths: in the run directory, config.out). The
// config's task (train/registry/task.h) makes the pairs.
Seq2SeqData make_seq2seq_data(const TrainConfig& config);

// The tasks' makers (every field but seed):
//   pairs_from_file  task file: the pairs of `data`, validated on val_data or a val_fraction share
//   drawn_pairs      a task that draws its pairs: a fresh training pair per index (Generator(seed) at
//                    offset i * 2^20), val_examples others drawn in turn from Generator(seed + offset)
struct PairDraw {
  std::function<data::Seq2SeqPair(Generator&)> pair;
  data::PairTokenizer tokenizer;  // every token a pair may have
  int64_t max_input_chars = 0, max_output_chars = 0;
};
Seq2SeqData pairs_from_file(const TrainConfig& config);
// A pair file's training and validation pairs (val_data, or a val_fraction share of data), and
// where each validation pair was read ("pairs.tsv:7"), to name the line of a token training lacks.
struct FilePairs {
  std::vector<data::Seq2SeqPair> train, val;
  std::vector<std::string> val_lines;
};
FilePairs read_file_pairs(const TrainConfig& config);
// A seq2seq checkpoint's tokenizer: its vocabulary with its token separator, or its tokenizer
// file (read from run_dir while unchanged), which must spell the vocabulary.
data::PairTokenizer run_pair_tokenizer(const Checkpoint& checkpoint, const std::filesystem::path& run_dir);
Seq2SeqData drawn_pairs(const TrainConfig& config, PairDraw draw);
Seq2SeqData drawn_pairs(const TrainConfig& config, const data::Seq2SeqTask& task);  // data/seq2seq_tasks.h's

struct Seq2SeqBatch {  // B pairs, S = the longest input, T = the longest output + 1
  Tensor src;          // (B,S) int64 input ids, <pad> after each input
  Tensor src_padding;  // (B,S) bool, true = pad
  Tensor tgt_in;       // (B,T) int64 <bos> y1 .. yn, then <pad>
  Tensor tgt_padding;  // (B,T) bool, true = pad
  Tensor tgt_out;      // (B,T) int64 y1 .. yn <eos>, then kIgnoreIndex (the loss skips it)
  int64_t src_tokens = 0, tgt_tokens = 0;  // non-pad positions of src and of tgt_out
};

// Every token must be the tokenizer's (encode_known throws for another).
Seq2SeqBatch make_seq2seq_batch(const std::vector<data::Seq2SeqPair>& pairs, const data::PairTokenizer& tokenizer,
                                Device device = kCPU);

// The ids of `text`'s tokens; a token the tokenizer lacks throws naming `where` and the token:
//   "seq2seq: test.jsonl:4 input: the token "eleven" is not in the model's vocabulary (23 tokens)"
std::vector<int64_t> encode_known(const data::PairTokenizer& tokenizer, const std::string& text,
                                  const std::string& where);

}  // namespace tg::train
