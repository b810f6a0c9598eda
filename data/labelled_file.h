#pragma once
// Per-position labelling tasks from your own files: every input token has one output token
// (tagging, transliteration, ...). Two formats, one example per line, UTF-8:
//
//   TSV    the cat sat<TAB>DET NOUN VERB           tokens separated by spaces
//   JSONL  {"input": ["the", "cat", "sat"], "output": ["DET", "NOUN", "VERB"]}
//          (a JSON number is the token written as JSON writes it: 7 -> "7")
//
// Input and output have the same (non-zero) number of tokens. A malformed line (bad JSON, a
// missing tab, a length mismatch, an empty line or side) throws tg::Error naming the file
// and line: "read_labelled_file: tags.tsv:3: input has 3 tokens but output has 2".
//
// Vocabularies are built from the training examples only (input and output separately, each
// token sorted, after the reserved tokens of data/vocab.h). In a file split at random, a
// validation token never seen in training becomes <unk>; a file encoded whole with a model's
// vocabularies (a separate validation file, a test file) must hold only tokens they have: an
// unknown token throws naming the file, the line and the token, since the model has no
// embedding for an unknown input and cannot predict an unknown output.
//
// The reserved token <bos> as an input token marks the start of a sequence: its position's
// target is kIgnoreIndex (neither trained on nor scored), whatever the output token there.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/example.h"
#include "data/vocab.h"

namespace tg::data {

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

struct LabelledTask {
  Vocab input_vocab;
  Vocab output_vocab;
  std::vector<Example> train;  // input ids, target = output ids (every position scored)
  std::vector<Example> val;
};

// Vocabularies from `train`, then both parts encoded (unknown tokens become <unk>).
LabelledTask labelled_task(const std::vector<TokenPair>& train, const std::vector<TokenPair>& val);
// One file split at random: round(val_fraction * examples) go to val, chosen by `seed`.
LabelledTask load_labelled_task(const std::string& path, double val_fraction, uint64_t seed);
// Separate training and validation files: vocabularies from the training file, the
// validation file encoded whole with them (encode_labelled).
LabelledTask load_labelled_task(const std::string& train_path, const std::string& val_path);

// Every pair of a file (pair i read from line i + 1 of `source`) with fixed vocabularies. A
// token either vocabulary lacks throws tg::Error naming the file, the line and the token:
//   "encode_labelled: test.jsonl:7: input token "f" (position 3) is not in the model's input
//    vocabulary (the 26 tokens of its training data)"
std::vector<Example> encode_labelled(const std::vector<TokenPair>& pairs, const Vocab& input_vocab,
                                     const Vocab& output_vocab, std::string_view source);

}  // namespace tg::data
