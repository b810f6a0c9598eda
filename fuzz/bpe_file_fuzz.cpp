// Fuzz target: a BPE tokenizer's file (tok.json, data/bpe_file.h) on any bytes. A tokenizer that
// loads must write itself back to a file that loads to the same merges and specials, and must
// encode and decode exactly: a fixed text (a declared special's name among its bytes, invalid
// UTF-8, a NUL) and the input's own first bytes.
// fuzz-links: tapegrad::data
#include <cstdlib>
#include <string>
#include <string_view>

#include "data/bpe_file.h"
#include "fuzz_input.h"

namespace {

constexpr char kText[] = "the <bos> cat\xff\xc3\0\xe6\x97\xa5 sat";

void require_round_trip(const tg::data::BpeTokenizer& tokenizer, std::string_view text) {
  if (tokenizer.decode(tokenizer.encode(text)) != text) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tg::fuzz::expect_only_tg_errors([&] {
    const tg::data::BpeTokenizer tokenizer = tg::data::bpe_from_json(bytes, "tok.json");
    const tg::data::BpeTokenizer again = tg::data::bpe_from_json(tg::data::bpe_to_json(tokenizer), "copy");
    if (again.merges() != tokenizer.merges() || again.specials() != tokenizer.specials()) std::abort();
    require_round_trip(tokenizer, std::string_view(kText, sizeof kText - 1));
    require_round_trip(tokenizer, bytes.substr(0, 256));
  });
  return 0;
}
