#include "data/seq2seq_file.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/line_reader.h"
#include "core/io/untrusted_text.h"
#include "data/json_line.h"
#include "data/seq2seq_tokenizer.h"
#include "data/text.h"

namespace tg::data {

namespace {

constexpr const char* kSeq2SeqFileOp = "read_seq2seq_file";

// A side as the line gives it: text (a TSV side, a JSON string) or a JSON list of tokens.
struct Side {
  std::string text;                 // text: as given
  std::vector<std::string> tokens;  // a list: its items
  bool listed = false;
};

Side text_side(std::string text) {
  Side side;
  side.text = std::move(text);
  return side;
}

Side list_side(std::vector<std::string> tokens) {
  Side side;
  side.tokens = std::move(tokens);
  side.listed = true;
  return side;
}

struct RawPair {
  Side input, output;
};

RawPair parse_tsv_pair(std::string_view line, const std::string& where) {
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos)
    throw Error(kSeq2SeqFileOp, fmt::format("{}: expected the input, one tab, the output", where));
  return {text_side(std::string(line.substr(0, tab))), text_side(std::string(line.substr(tab + 1)))};
}

Side json_side(const JsonLine& json, const char* key) {
  if (!json.has(key)) json.fail(fmt::format("{} is missing", key));
  const JsonLineField& value = json.field(key);
  const std::string_view type = value.type;
  if (type == "string") return text_side(value.text);
  if (type != "array") json.fail(fmt::format("{} must be a string or a list of tokens, got {}", key, value.type));
  if (value.other_item != std::string::npos)
    json.fail(fmt::format("{}[{}] must be a string or a number, got {}", key, value.other_item, value.other_item_type));
  return list_side(value.items);
}

RawPair parse_jsonl_pair(std::string_view line, const std::string& where) {
  const JsonLine json(line, kSeq2SeqFileOp, where);
  return {json_side(json, "input"), json_side(json, "output")};
}

const char* form_name(bool listed) { return listed ? "a list of tokens" : "a string"; }

// Reads one file's lines: the run's separator, and the form the file's first side gave.
class PairReader {
 public:
  explicit PairReader(std::string_view token_sep) : sep_(token_sep) {}

  Seq2SeqPair pair(RawPair raw, const std::string& where) {
    if (!form_) form_ = raw.input.listed;
    return {side_text(std::move(raw.input), "input", where), side_text(std::move(raw.output), "output", where)};
  }

 private:
  // The side's tokens, checked, joined by the separator.
  std::string side_text(Side side, const char* field, const std::string& where) const {
    if (side.listed != *form_)
      throw Error(kSeq2SeqFileOp, fmt::format("{}: {} is {}, but the file's first pair gives {}: a file gives every side in "
                                   "one form", where, field, form_name(side.listed), side.listed ? "strings" : "lists"));
    if (!side.listed) {
      check_utf8(side.text, where);  // a JSON string's escapes are decoded: its text is checked again
      side.tokens = split_tokens(side.text, sep_);
    }
    const char* unit = sep_.empty() ? "characters" : "tokens";
    if (side.tokens.empty()) throw Error(kSeq2SeqFileOp, fmt::format("{}: {} {}", where, field, side.listed || !sep_.empty()
                                                                                        ? "has no tokens" : "is empty"));
    if (std::ssize(side.tokens) > kMaxSeq2SeqTokens)
      throw Error(kSeq2SeqFileOp, fmt::format("{}: {} has {} {}, more than the limit of {}", where, field, side.tokens.size(), unit,
                                   kMaxSeq2SeqTokens));
    for (size_t i = 0; i < side.tokens.size(); ++i) check_token(side, i, field, where);
    if (sep_.empty() && !side.listed) return std::move(side.text);
    std::string text;
    for (size_t i = 0; i < side.tokens.size(); ++i) {
      if (i > 0) text += sep_;
      text += side.tokens[i];
    }
    return text;
  }

  void check_token(const Side& side, size_t i, const char* field, const std::string& where) const {
    const std::string& token = side.tokens[i];
    const auto fail = [&](const std::string& what) {  // names the token only then: most lines have no error
      const std::string name = side.listed ? fmt::format("{}[{}]", field, i) : fmt::format("{} token {}", field, i + 1);
      throw Error(kSeq2SeqFileOp, fmt::format("{}: {} {}", where, name, what));
    };
    if (token.empty()) fail("is an empty string");
    if (std::ssize(token) > kMaxSeq2SeqTokenBytes)
      fail(fmt::format("has {} bytes, more than the limit of {}", token.size(), kMaxSeq2SeqTokenBytes));
    const auto& reserved = Vocab::reserved_tokens();
    if (!sep_.empty() && std::find(reserved.begin(), reserved.end(), token) != reserved.end())
      fail(fmt::format("{} is a reserved name: <pad> <unk> <bos> <sep> <mask> are the vocabulary's own tokens, not "
                       "data", token));
    if (!side.listed) return;  // split from checked text: valid UTF-8, characters or free of the separator
    check_utf8(token, where);
    if (sep_.empty() && utf8_chars(token).size() != 1)
      fail(fmt::format("\"{}\" is not one character: without a token separator the tokens are characters (word "
                       "tokens need one: train --token-sep ' ')", excerpt(token)));
    if (!sep_.empty() && token.find(sep_) != std::string::npos)
      fail(fmt::format("\"{}\" contains the token separator \"{}\"", excerpt(token), visible_text(sep_)));
  }

  std::string_view sep_;
  std::optional<bool> form_;  // the file's: lists (true) or text
};

std::vector<Seq2SeqPair> parse_pair_lines(LineReader& lines, FileFormat format, std::string_view token_sep) {
  std::vector<Seq2SeqPair> pairs;
  PairReader reader(token_sep);
  for_each_record_line(lines, [&](std::string_view line, const std::string& where) {
    check_utf8(line, lines.source(), lines.line_number());
    pairs.push_back(reader.pair(format == FileFormat::tsv ? parse_tsv_pair(line, where) : parse_jsonl_pair(line, where),
                                where));
  });
  return pairs;
}

}  // namespace

std::vector<Seq2SeqPair> parse_seq2seq(std::string_view content, FileFormat format, std::string_view source,
                                       std::string_view token_sep) {
  LineReader lines(content, kSeq2SeqFileOp, source, kMaxLineBytes);
  return parse_pair_lines(lines, format, token_sep);
}

std::vector<Seq2SeqPair> read_seq2seq_file(const InputFile& file, std::string_view token_sep) {
  const std::string path = file.path().string();
  const FileFormat format = format_from_path(path);
  LineReader lines(file, kSeq2SeqFileOp, kMaxLineBytes);
  std::vector<Seq2SeqPair> pairs = parse_pair_lines(lines, format, token_sep);
  if (pairs.empty()) throw Error(kSeq2SeqFileOp, fmt::format("{}: the file has no pairs", path));
  return pairs;
}

std::vector<Seq2SeqPair> read_seq2seq_file(const std::string& path, std::string_view token_sep) {
  format_from_path(path);  // before opening: a .csv is refused as such, even when it is missing
  return read_seq2seq_file(InputFile("read_text_file", path), token_sep);
}

bool pair_file_gives_lists(const InputFile& file) {
  if (format_from_path(file.path().string()) != FileFormat::jsonl) return false;
  LineReader lines(file, kSeq2SeqFileOp, kMaxLineBytes);
  for (std::string_view line; lines.next(line);)
    if (line.find_first_not_of(" \t\r") != std::string_view::npos)
      return std::string_view(JsonLine(line, kSeq2SeqFileOp, lines.where()).field("input").type) == "array";
  return false;
}

}  // namespace tg::data
