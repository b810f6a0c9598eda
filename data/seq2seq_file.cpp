#include "data/seq2seq_file.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/line_reader.h"
#include "data/json_line.h"
#include "data/text.h"

namespace tg::data {

namespace {

constexpr const char* kOp = "read_seq2seq_file";

Seq2SeqPair parse_tsv_line(std::string_view line, const std::string& where) {
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos || line.find('\t', tab + 1) != std::string_view::npos)
    throw Error(kOp, fmt::format("{}: expected the input, one tab, the output", where));
  return {std::string(line.substr(0, tab)), std::string(line.substr(tab + 1))};
}

std::string json_string(const JsonLine& json, const char* key) {
  if (!json.has(key)) json.fail(fmt::format("{} is missing", key));
  const JsonLineField& value = json.field(key);
  if (std::string_view(value.type) != "string") json.fail(fmt::format("{} must be a string, got {}", key, value.type));
  return value.text;
}

Seq2SeqPair parse_jsonl_line(std::string_view line, const std::string& where) {
  const JsonLine json(line, kOp, where);
  return {json_string(json, "input"), json_string(json, "output")};
}

void check_side(const std::string& text, const char* field, const std::string& where) {
  check_utf8(text, where);  // a JSON string's escapes are decoded: its text is checked again
  const auto chars = std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // the first byte of a character
  });
  if (chars == 0) throw Error(kOp, fmt::format("{}: {} is empty", where, field));
  if (chars > kMaxSeq2SeqChars)
    throw Error(kOp, fmt::format("{}: {} has {} characters, more than the limit of {}", where, field, chars,
                                 kMaxSeq2SeqChars));
}

std::vector<Seq2SeqPair> parse_lines(LineReader& lines, FileFormat format) {
  std::vector<Seq2SeqPair> pairs;
  for_each_record_line(lines, [&](std::string_view line, const std::string& where) {
    check_utf8(line, lines.source(), lines.line_number());
    Seq2SeqPair p = format == FileFormat::tsv ? parse_tsv_line(line, where) : parse_jsonl_line(line, where);
    check_side(p.input, "input", where);
    check_side(p.output, "output", where);
    pairs.push_back(std::move(p));
  });
  return pairs;
}

}  // namespace

std::vector<Seq2SeqPair> parse_seq2seq(std::string_view content, FileFormat format, std::string_view source) {
  LineReader lines(content, kOp, source, kMaxLineBytes);
  return parse_lines(lines, format);
}

std::vector<Seq2SeqPair> read_seq2seq_file(const InputFile& file) {
  const std::string path = file.path().string();
  const FileFormat format = format_from_path(path);
  LineReader lines(file, kOp, kMaxLineBytes);
  std::vector<Seq2SeqPair> pairs = parse_lines(lines, format);
  if (pairs.empty()) throw Error(kOp, fmt::format("{}: the file has no pairs", path));
  return pairs;
}

std::vector<Seq2SeqPair> read_seq2seq_file(const std::string& path) {
  format_from_path(path);  // before opening: a .csv is refused as such, even when it is missing
  return read_seq2seq_file(InputFile("read_text_file", path));
}

}  // namespace tg::data
