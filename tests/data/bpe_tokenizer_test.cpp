// Byte-level BPE (data/bpe_tokenizer.h, data/bpe_training.h): the pre-tokenizer's chunks, merges
// worked by hand, exact round trips on any bytes, determinism and the special tokens.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/bpe_file.h"
#include "data/bpe_training.h"

using namespace tg::data;

namespace {

std::string random_bytes(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> byte(0, 255), small(0, 3);
  std::string text;
  // Bytes from a small alphabet most of the time (so pairs repeat), any byte otherwise.
  while (text.size() < n) text.push_back(static_cast<char>(small(gen) == 0 ? byte(gen) : 'a' + small(gen)));
  return text;
}

}  // namespace

TEST_CASE("bpe: the pre-tokenizer's chunks: words with their leading space, punctuation, white space") {
  const std::vector<std::string_view> chunks = bpe_chunks("Hello, world!  ok\n\nx");
  CHECK(chunks == std::vector<std::string_view>{"Hello", ",", " world", "!", " ", " ok", "\n\n", "x"});
  CHECK(bpe_chunks("naïve café") == std::vector<std::string_view>{"naïve", " café"});  // UTF-8 stays in its word
  CHECK(bpe_chunks("").empty());
}

TEST_CASE("bpe: merges worked by hand") {
  // chunks "abab" and " abab": (a,b) occurs 4 times, (b,a) 2, (' ',a) 1 -> 256 = "ab"; then
  // (256,256) occurs twice -> 257 = "abab"; then no pair occurs twice: training stops.
  const BpeTokenizer t = train_bpe({"abab abab"}, {.vocab_size = 300});
  CHECK(t.merges() == std::vector<BpeMerge>{{97, 98}, {256, 256}});
  CHECK(t.vocab_size() == 258);
  CHECK(t.token_bytes(257) == "abab");
  CHECK(t.encode("abab") == std::vector<TokenId>{257});
  CHECK(t.encode(" ab") == std::vector<TokenId>{32, 256});
  CHECK(t.encode("ba") == std::vector<TokenId>{98, 97});
}

TEST_CASE("bpe: ties go to the pair of smallest ids") {
  // chunks "ab", " ab", " cd", " cd": (' ',c), (a,b) and (c,d) occur twice each. (32,99) is the
  // smallest; then (97,98) and (256,100) tie at 2, and (97,98) goes first.
  const BpeTokenizer t = train_bpe({"ab ab cd cd"}, {.vocab_size = 300});
  CHECK(t.merges() == std::vector<BpeMerge>{{32, 99}, {97, 98}, {256, 100}});
}

TEST_CASE("bpe: the vocabulary size is what was asked, when the corpus has the pairs") {
  const BpeTokenizer t = train_bpe({random_bytes(20000, 1)}, {.vocab_size = 300, .specials = {"<bos>"}});
  CHECK(t.vocab_size() == 300);
  CHECK(t.merges().size() == 43);
}

TEST_CASE("bpe: decode(encode(bytes)) is the bytes, invalid UTF-8 and NUL included") {
  const BpeTokenizer t = train_bpe({random_bytes(30000, 2)}, {.vocab_size = 400});
  for (unsigned seed = 10; seed < 15; ++seed) {
    const std::string text = random_bytes(5000, seed) + std::string("\xff\xfe\0\x80 <bos>", 10);
    const std::vector<TokenId> ids = t.encode(text);
    CHECK(ids.size() < text.size());  // the merges compress
    CHECK(t.decode(ids) == text);
  }
}

TEST_CASE("bpe: training is deterministic and the file keeps every merge") {
  const std::string corpus = random_bytes(20000, 3);
  const BpeTokenizer a = train_bpe({corpus}, {.vocab_size = 350}), b = train_bpe({corpus}, {.vocab_size = 350});
  CHECK(bpe_to_json(a) == bpe_to_json(b));
  const BpeTokenizer read = bpe_from_json(bpe_to_json(a), "tok.json");
  CHECK(read.merges() == a.merges());
  CHECK(bpe_sha256(read) == bpe_sha256(a));
  CHECK(bpe_sha256(a).size() == 64);
}

TEST_CASE("bpe: special tokens come after the merges and are never made from text") {
  const BpeTokenizer t = train_bpe({"<bos> <bos> <bos> x"}, {.vocab_size = 300, .specials = {"<bos>", "<eos>"}});
  const TokenId bos = t.special_id("<bos>");
  CHECK(bos == 256 + static_cast<TokenId>(t.merges().size()));
  CHECK(t.special_id("<eos>") == bos + 1);
  for (TokenId id : t.encode("<bos>")) CHECK(id < bos);
  CHECK(t.decode(std::vector<TokenId>{bos}) == "<bos>");
  CHECK_THROWS_WITH_AS(t.special_id("<pad>"), doctest::Contains("no special token \"<pad>\": the tokenizer declares "
                                                                "<bos>, <eos>"), tg::Error);
}

TEST_CASE("bpe: bad arguments and ids are clear errors") {
  CHECK_THROWS_WITH_AS(train_bpe({"x"}, {.vocab_size = 256, .specials = {"<bos>"}}),
                       doctest::Contains("vocab_size must be in [257, 1048576]"), tg::Error);
  CHECK_THROWS_WITH_AS(train_bpe({"x"}, {.vocab_size = 300, .specials = {"<a>", "<a>"}}),
                       doctest::Contains("\"<a>\" is declared twice"), tg::Error);
  const BpeTokenizer t = train_bpe({"abab"}, {.vocab_size = 300});
  CHECK_THROWS_WITH_AS(t.decode(std::vector<TokenId>{97, 999}),
                       doctest::Contains("id 999 (at position 1) is outside the vocabulary of 257 tokens"), tg::Error);
}

TEST_CASE("bpe: a tokenizer file is untrusted input: each fault named with its file") {
  const auto error_of = [](const std::string& json) {
    try {
      bpe_from_json(json, "tok.json");
    } catch (const tg::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string ok = R"({"format": "tapegrad-bpe", "version": 1, "merges": [97, 98], "specials": []})";
  CHECK(error_of(ok) == "no error");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"format": "gpt2", "version": 1, "merges": [], "specials": []})", "not a tapegrad BPE tokenizer"},
      {R"({"format": "tapegrad-bpe", "version": 2, "merges": [], "specials": []})", "\"version\" 2 is not one"},
      {R"({"format": "tapegrad-bpe", "version": 1, "specials": []})", "the key \"merges\" is missing"},
      {R"({"format": "tapegrad-bpe", "version": 1, "merges": [97], "specials": []})", "pairs need an even count"},
      {R"({"format": "tapegrad-bpe", "version": 1, "merges": [97, 256], "specials": []})",
       "merge 0 (97, 256) must join two ids made before it, in [0, 256)"},
      {R"({"format": "tapegrad-bpe", "version": 1, "merges": [97, 98, 97, 98], "specials": []})",
       "merge 1 (97, 98) repeats an earlier merge"},
      {R"({"format": "tapegrad-bpe", "version": 1, "merges": [-1, 98], "specials": []})",
       "merges[0] must be a token id"},
      {R"({"format": "tapegrad-bpe", "version": 1, "merges": [[97, 98]], "specials": []})",
       "nest more than 2 deep (at column 53)"},
      {R"({"format": "tapegrad-bpe", "version": 1, "merges": [true, 98], "specials": []})",
       "\"merges\"[0] is boolean, not a number"},
      {R"({"format": "tapegrad-bpe", "version": 1, "merges": "97 98", "specials": []})",
       "\"merges\" must be an array, got string"},
      {R"({"format": "tapegrad-bpe", "format": "tapegrad-bpe", "version": 1, "merges": [], "specials": []})",
       "twice"},
      {"[[[[[[[[]]]]]]]]", "nest more than 2 deep"},
      {"{", "tok.json"},
  };
  for (const auto& c : cases) {
    const std::string& json = c.first;  // INFO takes it by reference: not a structured binding
    INFO(json);
    const std::string message = error_of(json);
    CHECK(message.find("tok.json") != std::string::npos);
    CHECK(message.find(c.second) != std::string::npos);
  }
}
