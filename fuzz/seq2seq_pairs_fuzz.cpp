// Fuzz target: the sequence-to-sequence pair reader (data/seq2seq_file.h), the same bytes read
// as a .tsv and as a .jsonl file, each with characters for tokens and with word tokens (the
// separator " "; a .jsonl file may give lists), and the first training batch built from what it
// reads (train/seq2seq_data.h: the tokenizer over the pairs' tokens, the padded id tensors).
// fuzz-links: tapegrad::tapegrad
#include <algorithm>
#include <string_view>

#include "data/seq2seq_file.h"
#include "data/seq2seq_tokenizer.h"
#include "fuzz_input.h"
#include "train/seq2seq_data.h"

namespace {

void read_and_batch(std::string_view content, tg::data::FileFormat format, std::string_view token_sep) {
  const std::vector<tg::data::Seq2SeqPair> pairs = tg::data::parse_seq2seq(content, format, "fuzz", token_sep);
  const auto tokenizer = tg::data::PairTokenizer::from_pairs(pairs, std::string(token_sep));
  const size_t batch = std::min<size_t>(pairs.size(), 8);
  tg::train::make_seq2seq_batch({pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(batch)}, tokenizer);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view content(reinterpret_cast<const char*>(data), size);
  for (tg::data::FileFormat format : {tg::data::FileFormat::tsv, tg::data::FileFormat::jsonl})
    for (std::string_view token_sep : {"", " "})
      tg::fuzz::expect_only_tg_errors([&] { read_and_batch(content, format, token_sep); });
  return 0;
}
