#include "data/bpe_file.h"

#include <openssl/evp.h>

#include <charconv>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/io/output_file.h"
#include "core/io/untrusted_text.h"
#include "data/json_line.h"

namespace tg::data {

namespace {

constexpr const char* kBpeFileOp = "tokenizer";
constexpr const char* kFormat = "tapegrad-bpe";

int64_t parse_id(const JsonLine& json, const std::string& text, size_t index) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value >= BpeTokenizer::kMaxVocab)
    json.fail(fmt::format("merges[{}] must be a token id in [0, {}), got {}", index, BpeTokenizer::kMaxVocab,
                          excerpt(text)));
  return value;
}

const JsonLineField& typed_field(const JsonLine& json, const char* key, std::string_view type) {
  const JsonLineField& field = json.field(key);
  if (!json.has(key)) json.fail(fmt::format("the key \"{}\" is missing", key));
  if (field.type != type) json.fail(fmt::format("\"{}\" must be {} {}, got {}", key, type == "array" ? "an" : "a", type,
                                                field.type));
  if (field.other_item != std::string::npos)
    json.fail(fmt::format("\"{}\"[{}] is {}, not a {}", key, field.other_item, field.other_item_type,
                          std::string_view(key) == "merges" ? "number" : "string"));
  return field;
}

}  // namespace

std::string bpe_to_json(const BpeTokenizer& tokenizer) {
  std::vector<int64_t> merges;
  for (const auto& [a, b] : tokenizer.merges()) merges.insert(merges.end(), {a, b});
  nlohmann::ordered_json j = {{"format", kFormat},
                              {"version", 1},
                              {"merges", merges},
                              {"specials", tokenizer.specials()}};
  return j.dump() + "\n";
}

BpeTokenizer bpe_from_json(std::string_view text, const std::string& where) {
  const JsonLine json(text, kBpeFileOp, where, 2);
  if (typed_field(json, "format", "string").text != kFormat)
    json.fail(fmt::format("\"format\" must be \"{}\", got \"{}\": not a tapegrad BPE tokenizer", kFormat,
                          excerpt(json.field("format").text)));
  if (typed_field(json, "version", "number").text != "1")
    json.fail(fmt::format("\"version\" {} is not one this tapegrad reads (1)", excerpt(json.field("version").text)));
  const std::vector<std::string>& flat = typed_field(json, "merges", "array").items;
  if (flat.size() % 2 != 0) json.fail(fmt::format("\"merges\" holds {} ids: pairs need an even count", flat.size()));
  std::vector<BpeMerge> merges;
  for (size_t i = 0; i < flat.size(); i += 2)
    merges.emplace_back(static_cast<TokenId>(parse_id(json, flat[i], i)),
                        static_cast<TokenId>(parse_id(json, flat[i + 1], i + 1)));
  std::vector<std::string> specials = typed_field(json, "specials", "array").items;
  try {
    return BpeTokenizer(std::move(merges), std::move(specials));
  } catch (const Error& e) {
    json.fail(std::string(e.what()).substr(e.op().size() + 2));  // the message without its "tokenizer: "
  }
}

void save_bpe_tokenizer(const BpeTokenizer& tokenizer, const std::filesystem::path& path) {
  write_file_atomically(kBpeFileOp, path, bpe_to_json(tokenizer));
}

BpeTokenizer load_bpe_tokenizer(const std::filesystem::path& path) { return load_bpe_tokenizer(InputFile(kBpeFileOp, path)); }

BpeTokenizer load_bpe_tokenizer(const InputFile& file) {
  if (file.size() > kMaxBpeFileBytes)
    file.fail(fmt::format("{} bytes is more than a tokenizer file may hold ({})", file.size(), kMaxBpeFileBytes));
  return bpe_from_json(file.read_all(), file.path().string());
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr) != 1)
    throw Error(kBpeFileOp, "SHA-256 failed");
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string bpe_sha256(const BpeTokenizer& tokenizer) { return sha256_hex(bpe_to_json(tokenizer)); }

}  // namespace tg::data
