#include "data/seq2seq_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/untrusted_text.h"
#include "data/text.h"

namespace tg::data {

namespace {

constexpr const char* kOp = "read_seq2seq_file";
constexpr int kMaxJsonDepth = 8;  // a deeper line is refused before parsing (the parser recurses)

Seq2SeqPair parse_tsv_line(std::string_view line, const std::string& where) {
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos)
    throw Error(kOp, fmt::format("{}: expected the input, one tab, the output", where));
  return {std::string(line.substr(0, tab)), std::string(line.substr(tab + 1))};
}

std::string json_string(const nlohmann::json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key)) throw Error(kOp, fmt::format("{}: {} is missing", where, key));
  const nlohmann::json& value = obj.at(key);
  if (!value.is_string())
    throw Error(kOp, fmt::format("{}: {} must be a string, got {}", where, key, value.type_name()));
  return value.get<std::string>();
}

Seq2SeqPair parse_jsonl_line(std::string_view line, const std::string& where) {
  if (auto at = json_too_deep(line, kMaxJsonDepth))
    throw Error(kOp, fmt::format("{}: arrays and objects nest more than {} deep (at column {})", where, kMaxJsonDepth,
                                 *at + 1));
  nlohmann::json obj;
  try {
    obj = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    throw Error(kOp, fmt::format("{}: bad JSON: {}", where, excerpt(e.what(), 160)));
  }
  if (!obj.is_object())
    throw Error(kOp, fmt::format("{}: expected a JSON object with \"input\" and \"output\"", where));
  return {json_string(obj, "input", where), json_string(obj, "output", where)};
}

void check_side(const std::string& text, const char* field, const std::string& where) {
  const auto chars = static_cast<int64_t>(utf8_chars(text, where).size());
  if (chars == 0) throw Error(kOp, fmt::format("{}: {} is empty", where, field));
  if (chars > kMaxSeq2SeqChars)
    throw Error(kOp, fmt::format("{}: {} has {} characters, more than the limit of {}", where, field, chars,
                                 kMaxSeq2SeqChars));
}

}  // namespace

std::vector<Seq2SeqPair> parse_seq2seq(std::string_view content, FileFormat format, std::string_view source) {
  utf8_chars(content, source);  // throws naming the line of any invalid UTF-8
  std::vector<Seq2SeqPair> pairs;
  for_each_record_line(content, source, [&](std::string_view line, const std::string& where) {
    if (line.empty()) throw Error(kOp, fmt::format("{}: empty line", where));
    Seq2SeqPair p = format == FileFormat::tsv ? parse_tsv_line(line, where) : parse_jsonl_line(line, where);
    check_side(p.input, "input", where);
    check_side(p.output, "output", where);
    pairs.push_back(std::move(p));
  });
  return pairs;
}

std::vector<Seq2SeqPair> read_seq2seq_file(const std::string& path) {
  std::vector<Seq2SeqPair> pairs = parse_seq2seq(read_text_file(path), format_from_path(path), path);
  if (pairs.empty()) throw Error(kOp, fmt::format("{}: the file has no pairs", path));
  return pairs;
}

}  // namespace tg::data
