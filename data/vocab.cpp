#include "data/vocab.h"

#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/io/output_file.h"

namespace tg::data {

namespace {

constexpr const char* kHeader = "tapegrad-vocab 1";

// The inverse of escape_token; throws naming `where` (file:line) on an unknown escape.
std::string unescape_token(const std::string& text, const std::string& where) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    char next = i + 1 < text.size() ? text[++i] : '\0';
    switch (next) {
      case '\\': out += '\\'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 's': out += ' '; break;
      default: throw Error("Vocab::load", fmt::format("{}: unknown escape in token \"{}\"", where, text));
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& Vocab::reserved_tokens() {
  static const std::vector<std::string> reserved = {"<pad>", "<unk>", "<bos>", "<sep>", "<mask>"};
  return reserved;
}

Vocab::Vocab() {
  for (const std::string& t : reserved_tokens()) add(t);
}

Vocab::Vocab(const std::vector<std::string>& tokens) : Vocab() {
  for (const std::string& t : tokens) add(t);
}

int64_t Vocab::add(const std::string& token) {
  if (token.empty()) throw Error("Vocab", "a token cannot be the empty string");
  auto [it, inserted] = ids_.try_emplace(token, size());
  if (inserted) tokens_.push_back(token);
  return it->second;
}

int64_t Vocab::id(const std::string& token) const {
  auto it = ids_.find(token);
  return it == ids_.end() ? kUnkId : it->second;
}

const std::string& Vocab::token(int64_t id) const {
  if (id < 0 || id >= size())
    throw Error("Vocab", fmt::format("id {} is out of range for a vocabulary of {} tokens", id, size()));
  return tokens_[id];
}

std::vector<int64_t> Vocab::encode(const std::vector<std::string>& tokens) const {
  std::vector<int64_t> ids;
  ids.reserve(tokens.size());
  for (const std::string& t : tokens) ids.push_back(id(t));
  return ids;
}

std::vector<std::string> Vocab::decode(const std::vector<int64_t>& ids) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int64_t i : ids) tokens.push_back(token(i));
  return tokens;
}

void Vocab::save(const std::string& path) const {
  OutputFile out("Vocab::save", path);
  out.stream() << kHeader << '\n';
  for (const std::string& t : tokens_) out.stream() << escape_token(t) << '\n';
  out.commit();
}

Vocab Vocab::load(const std::string& path) {
  std::istringstream in(InputFile("Vocab::load", path).read_all());  // refuses what is not a regular file
  std::string line;
  if (!std::getline(in, line) || line != kHeader)
    throw Error("Vocab::load", fmt::format("{}:1: expected the header \"{}\"", path, kHeader));
  Vocab vocab;
  int64_t id = 0;
  for (; std::getline(in, line); ++id) {
    std::string where = fmt::format("{}:{}", path, id + 2);
    std::string token = unescape_token(line, where);
    if (id < kNumReserved) {
      if (token != reserved_tokens()[id])
        throw Error("Vocab::load", fmt::format("{}: expected the reserved token {} (id {}), found \"{}\"", where,
                                               reserved_tokens()[id], id, line));
      continue;
    }
    if (token.empty()) throw Error("Vocab::load", fmt::format("{}: empty token", where));
    if (vocab.contains(token))
      throw Error("Vocab::load", fmt::format("{}: token \"{}\" repeats id {}", where, line, vocab.id(token)));
    vocab.add(token);
  }
  if (id < kNumReserved)
    throw Error("Vocab::load", fmt::format("{}: the file ends before the reserved tokens", path));
  return vocab;
}

std::string escape_token(const std::string& token) {
  std::string out;
  for (char c : token) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case ' ': out += "\\s"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace tg::data
