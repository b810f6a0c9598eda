#include "data/labelled_file.h"

#include <algorithm>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/line_reader.h"
#include "data/json_line.h"
#include "data/random.h"
#include "data/text.h"

namespace tg::data {

namespace {

constexpr const char* kLabelledFileOp = "read_labelled_file";

std::vector<std::string> split_spaces(std::string_view text) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    if (end > i) tokens.emplace_back(text.substr(i, end - i));
    i = end + 1;
  }
  return tokens;
}

TokenPair parse_tsv_line(std::string_view line, const std::string& where) {
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos)
    throw Error(kLabelledFileOp, fmt::format("{}: expected input tokens, one tab, output tokens", where));
  return {split_spaces(line.substr(0, tab)), split_spaces(line.substr(tab + 1))};
}

std::vector<std::string> json_tokens(const JsonLine& line, const char* key) {
  const JsonLineField& field = line.field(key);
  if (std::string_view(field.type) != "array") line.fail(fmt::format("\"{}\" must be an array of tokens", key));
  if (field.other_item != std::string::npos)
    line.fail(fmt::format("{}[{}] must be a string or a number, got {}", key, field.other_item, field.other_item_type));
  for (size_t i = 0; i < field.items.size(); ++i)
    if (field.items[i].empty()) line.fail(fmt::format("{}[{}] is an empty string", key, i));
  return field.items;
}

TokenPair parse_jsonl_line(std::string_view line, const std::string& where) {
  const JsonLine json(line, kLabelledFileOp, where);
  return {json_tokens(json, "input"), json_tokens(json, "output")};
}

// A side's tokens against the limit and the reserved names. <bos> is the documented start
// marker, so it may open a side; anywhere else it is data that would become the marker.
void check_side(const std::vector<std::string>& tokens, const char* side, const std::string& where) {
  if (tokens.empty()) throw Error(kLabelledFileOp, fmt::format("{}: the {} has no tokens", where, side));
  if (std::ssize(tokens) > kMaxLabelledTokens)
    throw Error(kLabelledFileOp, fmt::format("{}: the {} has {} tokens, more than the limit of {}", where, side, tokens.size(),
                                 kMaxLabelledTokens));
  const auto& reserved = Vocab::reserved_tokens();
  for (size_t t = 0; t < tokens.size(); ++t) {
    if (tokens[t] == reserved[kBosId] && t > 0)
      throw Error(kLabelledFileOp, fmt::format("{}: {} token <bos> (position {}) is a reserved name: <bos> marks a sequence's "
                                   "start and may only be its first token", where, side, t + 1));
    if (tokens[t] != reserved[kBosId] && std::find(reserved.begin(), reserved.end(), tokens[t]) != reserved.end())
      throw Error(kLabelledFileOp, fmt::format("{}: {} token {} (position {}) is a reserved name: <pad> <unk> <sep> <mask> are "
                                   "the vocabulary's own tokens, not data (<bos> marks a sequence's start)", where,
                                   side, tokens[t], t + 1));
  }
}

std::vector<TokenPair> parse_lines(LineReader& lines, FileFormat format) {
  std::vector<TokenPair> pairs;
  for_each_record_line(lines, [&](std::string_view line, const std::string& where) {
    check_utf8(line, lines.source(), lines.line_number());
    TokenPair p = format == FileFormat::tsv ? parse_tsv_line(line, where) : parse_jsonl_line(line, where);
    check_side(p.input, "input", where);
    check_side(p.output, "output", where);
    if (p.input.size() != p.output.size())
      throw Error(kLabelledFileOp, fmt::format("{}: input has {} tokens but output has {}", where, p.input.size(), p.output.size()));
    pairs.push_back(std::move(p));
  });
  return pairs;
}

Vocab vocab_of(const std::vector<TokenPair>& pairs, std::vector<std::string> TokenPair::*side) {
  std::set<std::string> tokens;
  for (const TokenPair& p : pairs) tokens.insert((p.*side).begin(), (p.*side).end());
  return Vocab(std::vector<std::string>(tokens.begin(), tokens.end()));
}

// Ids for the tokens; the <bos> position's target is not scored.
Example encoded(const TokenPair& p, const Vocab& in, const Vocab& out) {
  Example ex{in.encode(p.input), out.encode(p.output)};
  for (size_t t = 0; t < ex.input.size(); ++t)
    if (ex.input[t] == kBosId) ex.target[t] = kIgnoreIndex;
  return ex;
}

// The first token of `tokens` that `vocab` lacks, if any: throws naming where it is.
void require_known(const std::vector<std::string>& tokens, const Vocab& vocab, const char* side, std::string_view source,
                   size_t line) {
  for (size_t t = 0; t < tokens.size(); ++t)
    if (!vocab.contains(tokens[t]))
      throw Error("encode_labelled",
                  fmt::format("{}:{}: {} token \"{}\" (position {}) is not in the model's {} vocabulary (the {} "
                              "tokens of its training data)", source, line, side, escape_token(tokens[t]), t + 1, side,
                              vocab.size() - kNumReserved));
}

// Pair `p`, read from `line` of `source`, with vocabularies that must have all its tokens.
Example encoded_known(const TokenPair& p, const Vocab& in, const Vocab& out, std::string_view source, size_t line) {
  require_known(p.input, in, "input", source, line);
  require_known(p.output, out, "output", source, line);
  return encoded(p, in, out);
}

}  // namespace

FileFormat format_from_path(const std::string& path) {
  if (path.ends_with(".tsv")) return FileFormat::tsv;
  if (path.ends_with(".jsonl")) return FileFormat::jsonl;
  throw Error(kLabelledFileOp, fmt::format("{}: unknown format (expected a .tsv or .jsonl file)", path));
}

std::vector<TokenPair> parse_labelled(std::string_view content, FileFormat format, std::string_view source) {
  LineReader lines(content, kLabelledFileOp, source, kMaxLineBytes);
  return parse_lines(lines, format);
}

std::vector<TokenPair> read_labelled_file(const InputFile& file) {
  const std::string path = file.path().string();
  const FileFormat format = format_from_path(path);
  LineReader lines(file, kLabelledFileOp, kMaxLineBytes);
  std::vector<TokenPair> pairs = parse_lines(lines, format);
  if (pairs.empty()) throw Error(kLabelledFileOp, fmt::format("{}: the file has no examples", path));
  return pairs;
}

std::vector<TokenPair> read_labelled_file(const std::string& path) {
  format_from_path(path);  // before opening: a .csv is refused as such, even when it is missing
  return read_labelled_file(InputFile("read_text_file", path));
}

LabelledTask labelled_task(const std::vector<TokenPair>& train) {
  if (train.empty()) throw Error("labelled_task", "there are no training examples");
  LabelledTask task{vocab_of(train, &TokenPair::input), vocab_of(train, &TokenPair::output), {}, {}};
  task.train.reserve(train.size());
  for (const TokenPair& p : train) task.train.push_back(encoded(p, task.input_vocab, task.output_vocab));
  return task;
}

LabelledTask load_labelled_task(const InputFile& file, double val_fraction, uint64_t seed) {
  const std::vector<TokenPair> pairs = read_labelled_file(file);
  const std::vector<bool> is_val = choose_validation(std::ssize(pairs), val_fraction, seed);
  std::vector<TokenPair> train;
  for (size_t i = 0; i < pairs.size(); ++i)
    if (!is_val[i]) train.push_back(pairs[i]);
  LabelledTask task = labelled_task(train);
  for (size_t i = 0; i < pairs.size(); ++i)  // pair i is line i + 1
    if (is_val[i])
      task.val.push_back(encoded_known(pairs[i], task.input_vocab, task.output_vocab, file.path().string(), i + 1));
  return task;
}

LabelledTask load_labelled_task(const std::string& path, double val_fraction, uint64_t seed) {
  return load_labelled_task(InputFile("read_text_file", path), val_fraction, seed);
}

LabelledTask load_labelled_task(const InputFile& train_file, const InputFile& val_file) {
  LabelledTask task = labelled_task(read_labelled_file(train_file));
  task.val = encode_labelled(read_labelled_file(val_file), task.input_vocab, task.output_vocab,
                             val_file.path().string());
  return task;
}

LabelledTask load_labelled_task(const std::string& train_path, const std::string& val_path) {
  return load_labelled_task(InputFile("read_text_file", train_path), InputFile("read_text_file", val_path));
}

std::vector<Example> encode_labelled(const std::vector<TokenPair>& pairs, const Vocab& input_vocab,
                                     const Vocab& output_vocab, std::string_view source) {
  std::vector<Example> examples;
  examples.reserve(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i)
    examples.push_back(encoded_known(pairs[i], input_vocab, output_vocab, source, i + 1));
  return examples;
}

}  // namespace tg::data
