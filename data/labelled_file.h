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
// token sorted, after the reserved tokens of data/vocab.h); a validation token never seen in
// training becomes <unk>.
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

// Vocabularies from `train`, then both parts encoded.
LabelledTask labelled_task(const std::vector<TokenPair>& train, const std::vector<TokenPair>& val);
// One file split at random: round(val_fraction * examples) go to val, chosen by `seed`.
LabelledTask load_labelled_task(const std::string& path, double val_fraction, uint64_t seed);
// Separate training and validation files.
LabelledTask load_labelled_task(const std::string& train_path, const std::string& val_path);

}  // namespace tg::data
