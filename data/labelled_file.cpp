#include "data/labelled_file.h"

#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/untrusted_text.h"
#include "data/random.h"
#include "data/text.h"

namespace tg::data {

namespace {

constexpr const char* kOp = "read_labelled_file";

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
    throw Error(kOp, fmt::format("{}: expected input tokens, one tab, output tokens", where));
  return {split_spaces(line.substr(0, tab)), split_spaces(line.substr(tab + 1))};
}

// A line's JSON nests two deep ({"input": [...]}); deeper is refused before parsing, so that
// nothing recursive ever walks a deeply nested value.
constexpr int kMaxJsonDepth = 8;

std::vector<std::string> json_tokens(const nlohmann::json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_array())
    throw Error(kOp, fmt::format("{}: \"{}\" must be an array of tokens", where, key));
  std::vector<std::string> tokens;
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& t = (*it)[i];
    if (t.is_string()) tokens.push_back(t.get<std::string>());
    else if (t.is_number()) tokens.push_back(t.dump());
    else
      throw Error(kOp, fmt::format("{}: {}[{}] must be a string or a number, got {}", where, key, i,
                                   excerpt(t.dump())));
    if (tokens.back().empty()) throw Error(kOp, fmt::format("{}: {}[{}] is an empty string", where, key, i));
  }
  return tokens;
}

TokenPair parse_jsonl_line(std::string_view line, const std::string& where) {
  if (auto at = json_too_deep(line, kMaxJsonDepth))
    throw Error(kOp, fmt::format("{}: arrays and objects nest more than {} deep (at column {})", where, kMaxJsonDepth,
                                 *at + 1));
  nlohmann::json obj;
  try {
    obj = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number such as 1e400
    throw Error(kOp, fmt::format("{}: bad JSON: {}", where, excerpt(e.what(), 160)));
  }
  if (!obj.is_object()) throw Error(kOp, fmt::format("{}: expected a JSON object with \"input\" and \"output\"", where));
  return {json_tokens(obj, "input", where), json_tokens(obj, "output", where)};
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

std::vector<Example> encode_all(const std::vector<TokenPair>& pairs, const Vocab& in, const Vocab& out) {
  std::vector<Example> examples;
  examples.reserve(pairs.size());
  for (const TokenPair& p : pairs) examples.push_back(encoded(p, in, out));
  return examples;
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

}  // namespace

FileFormat format_from_path(const std::string& path) {
  if (path.ends_with(".tsv")) return FileFormat::tsv;
  if (path.ends_with(".jsonl")) return FileFormat::jsonl;
  throw Error(kOp, fmt::format("{}: unknown format (expected a .tsv or .jsonl file)", path));
}

std::vector<TokenPair> parse_labelled(std::string_view content, FileFormat format, std::string_view source) {
  utf8_chars(content, source);  // throws naming the line of any invalid UTF-8
  std::vector<TokenPair> pairs;
  for_each_record_line(content, source, [&](std::string_view line, const std::string& where) {
    if (line.find_first_not_of(" \t") == std::string_view::npos)
      throw Error(kOp, fmt::format("{}: empty line", where));
    TokenPair p = format == FileFormat::tsv ? parse_tsv_line(line, where) : parse_jsonl_line(line, where);
    if (p.input.empty()) throw Error(kOp, fmt::format("{}: the input has no tokens", where));
    if (p.output.empty()) throw Error(kOp, fmt::format("{}: the output has no tokens", where));
    if (p.input.size() != p.output.size())
      throw Error(kOp, fmt::format("{}: input has {} tokens but output has {}", where, p.input.size(), p.output.size()));
    pairs.push_back(std::move(p));
  });
  return pairs;
}

std::vector<TokenPair> read_labelled_file(const std::string& path) {
  std::vector<TokenPair> pairs = parse_labelled(read_text_file(path), format_from_path(path), path);
  if (pairs.empty()) throw Error(kOp, fmt::format("{}: the file has no examples", path));
  return pairs;
}

LabelledTask labelled_task(const std::vector<TokenPair>& train, const std::vector<TokenPair>& val) {
  if (train.empty()) throw Error("labelled_task", "there are no training examples");
  LabelledTask task{vocab_of(train, &TokenPair::input), vocab_of(train, &TokenPair::output), {}, {}};
  task.train = encode_all(train, task.input_vocab, task.output_vocab);
  task.val = encode_all(val, task.input_vocab, task.output_vocab);
  return task;
}

LabelledTask load_labelled_task(const std::string& path, double val_fraction, uint64_t seed) {
  std::vector<TokenPair> train, val;
  split_by_fraction(read_labelled_file(path), val_fraction, seed, train, val);
  return labelled_task(train, val);
}

LabelledTask load_labelled_task(const std::string& train_path, const std::string& val_path) {
  LabelledTask task = labelled_task(read_labelled_file(train_path), {});
  task.val = encode_labelled(read_labelled_file(val_path), task.input_vocab, task.output_vocab, val_path);
  return task;
}

std::vector<Example> encode_labelled(const std::vector<TokenPair>& pairs, const Vocab& input_vocab,
                                     const Vocab& output_vocab, std::string_view source) {
  for (size_t i = 0; i < pairs.size(); ++i) {
    require_known(pairs[i].input, input_vocab, "input", source, i + 1);
    require_known(pairs[i].output, output_vocab, "output", source, i + 1);
  }
  return encode_all(pairs, input_vocab, output_vocab);
}

}  // namespace tg::data
