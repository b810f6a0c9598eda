#pragma once
// Per-position labelling tasks from your own files: every input token has one output token
// (tagging, transliteration, ...). Two formats, one example per line, UTF-8:
//
//   TSV    the cat sat<TAB>DET NOUN VERB           tokens separated by spaces
//   JSONL  {"input": ["the", "cat", "sat"], "output": ["DET", "NOUN", "VERB"]}
//
// A token is its text as written in the file: a JSON number is the number's text (1.0, 1e0
// and 7 are the tokens "1.0", "1e0" and "7"); a byte order mark at the start of the file is no
// part of the first token. Input and output have the same (non-zero) number of tokens, at most
// kMaxLabelledTokens; a line has at most kMaxLineBytes bytes. A malformed line (bad JSON, a key
// twice in one object, a missing tab, a length mismatch, an empty line or side, a line or side
// over its limit, a reserved token name) throws tg::Error naming the file and line:
// "read_labelled_file: tags.tsv:3: input has 3 tokens but output has 2". A longer line is
// refused before it is read whole: memory holds one line.
//
// The reserved names of data/vocab.h (<pad> <unk> <sep> <mask>) are the vocabulary's own
// tokens: one in a file is an error, so that no data token is taken for one of them. <bos> is
// the exception, by design: as an input token it marks the start of a sequence, and its
// position's target is kIgnoreIndex (neither trained on nor scored), whatever the output token.
//
// Vocabularies are built from the training examples only (input and output separately, each
// token sorted, after the reserved tokens). Every other example must hold only tokens they
// have, whether held out of the same file at random, in a separate validation file or in a
// test file: an unknown token throws naming the file, the line and the token, since the model
// has no embedding for an unknown input and cannot predict an unknown output.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/input_file.h"
#include "data/example.h"
#include "data/vocab.h"

namespace tg::data {

// The most bytes a line of a .tsv or .jsonl data file (labelled or pairs) may have.
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;
// The most tokens an input or an output may have: the longest sequence a model takes
// (train/config.h's kMaxSequenceLength).
inline constexpr int64_t kMaxLabelledTokens = int64_t{1} << 16;

enum class FileFormat { tsv, jsonl };

struct TokenPair {
  std::vector<std::string> input;
  std::vector<std::string> output;
  bool operator==(const TokenPair&) const = default;
};

// tsv for "*.tsv", jsonl for "*.jsonl"; anything else throws.
FileFormat format_from_path(const std::string& path);
// Parses file contents; `source` names them in errors (the file name).
std::vector<TokenPair> parse_labelled(std::string_view content, FileFormat format, std::string_view source);
// Reads and parses a file (format from its name). A file without examples throws.
std::vector<TokenPair> read_labelled_file(const std::string& path);
std::vector<TokenPair> read_labelled_file(const InputFile& file);

struct LabelledTask {
  Vocab input_vocab;
  Vocab output_vocab;
  std::vector<Example> train;  // input ids, target = output ids (every position scored)
  std::vector<Example> val;
};

// Vocabularies from `train`, and `train` encoded with them (no validation examples).
LabelledTask labelled_task(const std::vector<TokenPair>& train);
// One file split at random: round(val_fraction * examples) go to val, chosen by `seed`; a
// validation token the training examples lack throws, naming its line.
LabelledTask load_labelled_task(const std::string& path, double val_fraction, uint64_t seed);
LabelledTask load_labelled_task(const InputFile& file, double val_fraction, uint64_t seed);
// Separate training and validation files: vocabularies from the training file, the
// validation file encoded whole with them (encode_labelled).
LabelledTask load_labelled_task(const std::string& train_path, const std::string& val_path);
LabelledTask load_labelled_task(const InputFile& train_file, const InputFile& val_file);

// Every pair of a file (pair i read from line i + 1 of `source`) with fixed vocabularies. A
// token either vocabulary lacks throws tg::Error naming the file, the line and the token:
//   "encode_labelled: test.jsonl:7: input token "f" (position 3) is not in the model's input
//    vocabulary (the 26 tokens of its training data)"
std::vector<Example> encode_labelled(const std::vector<TokenPair>& pairs, const Vocab& input_vocab,
                                     const Vocab& output_vocab, std::string_view source);

}  // namespace tg::data
