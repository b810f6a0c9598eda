// TextTokens (data/text_tokens.h): a BPE tokenizer's tokens behind the model's vocabulary, and
// the bytes of text each id stands for, from which bits per byte are counted.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>

#include "core/error.h"
#include "data/bpe_training.h"
#include "data/text_tokens.h"

using namespace tg::data;

TEST_CASE("TextTokens: BPE ids follow the reserved ids and decode to the same bytes") {
  // Merges: "a"+"b" -> 256, 256+"c" -> 257; then the special token <eot>.
  auto bpe = std::make_shared<const BpeTokenizer>(std::vector<BpeMerge>{{'a', 'b'}, {256, 'c'}},
                                                  std::vector<std::string>{"<eot>"});
  const TextTokens tokens(bpe);
  CHECK(tokens.vocab().size() == kNumReserved + 259);
  CHECK(tokens.vocab().token(kNumReserved + 'a') == "a");
  CHECK(tokens.vocab().token(kNumReserved + 257) == "abc");
  CHECK(tokens.vocab().token(kNumReserved + 258) == "<eot>");
  CHECK(tokens.vocab().token(kNumReserved + 0xE2) == "\\xE2");  // a byte that is not a character alone

  const std::string text = "abc ab\xE2\x82\xAC!";
  const std::vector<int32_t> ids = tokens.encode(text);
  // "abc" is one token, " ab" begins with the space's byte, "€" is its three bytes.
  REQUIRE(ids.size() >= 3);
  CHECK(ids[0] == kNumReserved + 257);
  for (int32_t id : ids) CHECK(id >= kNumReserved);
  const std::vector<int64_t> wide(ids.begin(), ids.end());
  CHECK(tokens.decode(wide) == text);

  // The bytes per id: 0 for the reserved ids, 3 for "abc", the name's length for <eot>.
  CHECK(tokens.text_bytes()[0] == 0);
  CHECK(tokens.text_bytes()[kNumReserved + 257] == 3);
  CHECK(tokens.text_bytes()[kNumReserved + 'a'] == 1);
  CHECK(tokens.text_bytes()[kNumReserved + 258] == 5);
  CHECK_THROWS_AS(tokens.decode(std::vector<int64_t>{kNumReserved + 259}), tg::Error);
}

TEST_CASE("TextTokens: two merges that spell the same bytes get distinct names") {
  // "ab"+"c" and "a"+"bc" both spell "abc".
  const BpeTokenizer bpe({{'a', 'b'}, {256, 'c'}, {'b', 'c'}, {'a', 258}}, {});
  const Vocab vocab = bpe_vocab(bpe);
  CHECK(vocab.token(kNumReserved + 257) == "abc");
  CHECK(vocab.token(kNumReserved + 259) == "abc#259");
  CHECK(std::set<std::string>(vocab.tokens().begin(), vocab.tokens().end()).size() == vocab.tokens().size());
}

TEST_CASE("TextTokens: characters are their own bytes, a character of UTF-8 its several") {
  const TextTokens tokens(CharTokenizer::from_text("ab\xC3\xA9"));
  const std::vector<int32_t> ids = tokens.encode("\xC3\xA9" "a");
  CHECK(tokens.text_bytes()[static_cast<size_t>(ids[0])] == 2);
  CHECK(tokens.text_bytes()[static_cast<size_t>(ids[1])] == 1);
  CHECK(tokens.decode(std::vector<int64_t>(ids.begin(), ids.end())) == "\xC3\xA9" "a");
  CHECK(tokens.bpe() == nullptr);
}

TEST_CASE("bits_per_byte: nats per token over the text's bytes") {
  // 4 tokens at ln 2 nats each are 4 bits; over 8 bytes, half a bit per byte.
  CHECK(bits_per_byte(std::log(2.0), 4, 8) == doctest::Approx(0.5));
  // Characters of one byte each: the loss in bits.
  CHECK(bits_per_byte(1.0, 10, 10) == doctest::Approx(1.0 / std::log(2.0)));
  CHECK(bits_per_byte(1.0, 10, 0) == 0.0);
}
