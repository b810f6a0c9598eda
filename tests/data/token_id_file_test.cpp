// Token id files (data/token_id_file.h): round trips in both widths, and every fault of an
// untrusted file named.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/token_id_file.h"
#include "temp_file.h"

using namespace tg::data;
using tg::test::TempFile;

namespace {

const std::string kHash(64, 'a');

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string error_reading(const std::string& path, int64_t vocab = 300, const std::string& hash = kHash) {
  try {
    read_token_id_file(path, vocab, hash);
  } catch (const tg::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("token id file: 2-byte ids for a vocabulary up to 65536, 4-byte ids above, read back exactly") {
  const std::vector<TokenId> ids = {0, 5, 299, 65535};
  TempFile small("ids_small.bin"), large("ids_large.bin");
  write_token_id_file(small.path(), ids, 65536, kHash);
  write_token_id_file(large.path(), std::vector<TokenId>{0, 65536, 70000}, 70001, kHash);
  CHECK(std::filesystem::file_size(small.path()) == kTokenIdHeaderBytes + 4 * 2);
  CHECK(std::filesystem::file_size(large.path()) == kTokenIdHeaderBytes + 3 * 4);
  CHECK(read(small.path()).substr(0, 8) == "TGTOKIDS");
  CHECK(read_token_id_header(small.path()).id_bytes == 2);
  CHECK(read_token_id_header(large.path()).count == 3);
  CHECK(read_token_id_file(small.path(), 65536, kHash) == ids);
  CHECK(read_token_id_file(large.path(), 70001, kHash) == std::vector<TokenId>{0, 65536, 70000});
}

TEST_CASE("token id file: truncated, foreign, another tokenizer's, or holding an id out of range") {
  TempFile file("ids_faults.bin");
  write_token_id_file(file.path(), std::vector<TokenId>{1, 2, 3}, 300, kHash);
  const std::string good = read(file.path());
  CHECK(error_reading(file.path()) == "no error");
  CHECK(error_reading(file.path(), 300, std::string(64, 'b')).find("made by the tokenizer with SHA-256 aaaa") !=
        std::string::npos);
  CHECK(error_reading(file.path(), 3).find("id 3 (at position 2) is outside the tokenizer's vocabulary of 3") !=
        std::string::npos);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {good.substr(0, good.size() - 1), "the header says 3 ids of 2 bytes, but 5 bytes follow it"},
      {good + "x", "but 7 bytes follow it"},
      {good.substr(0, 40), "shorter than a token id file's 88-byte header"},
      {"PK\x03\x04" + good.substr(4), "not a token id file"},
      {good.substr(0, 8) + std::string("\x02\0\0\0", 4) + good.substr(12), "version 2 is not one"},
      {good.substr(0, 12) + std::string("\x03\0\0\0", 4) + good.substr(16), "bytes per id must be 2 or 4, got 3"},
      {good.substr(0, 16) + std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8) + good.substr(24), "the header says"},
      {good.substr(0, 24) + std::string(64, 'Z') + good.substr(88), "64 lowercase hex digits"},
  };
  for (const auto& c : cases) {
    const std::string& expected = c.second;  // INFO takes it by reference: not a structured binding
    INFO(expected);
    TempFile bad("ids_bad.bin", c.first);
    const std::string message = error_reading(bad.path());
    CHECK(message.find(bad.path()) != std::string::npos);
    CHECK(message.find(expected) != std::string::npos);
  }
}

TEST_CASE("token id file: writing refuses an id outside the vocabulary") {
  TempFile file("ids_refused.bin");
  CHECK_THROWS_WITH_AS(write_token_id_file(file.path(), std::vector<TokenId>{1, 300}, 300, kHash),
                       doctest::Contains("id 300 (at position 1) is outside the vocabulary of 300 tokens"), tg::Error);
  CHECK(std::filesystem::file_size(file.path()) == 0);  // as TempFile made it: nothing written
}
