// Fuzz target: the text corpus reader of `--task lm --data FILE` (data/text.h, data/char_lm.h):
// the file's bytes, their UTF-8 characters, the tokenizer and the windows.
// fuzz-links: tapegrad::data
#include "data/char_lm.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = tg::fuzz::input_as_file(data, size, ".txt");
  tg::fuzz::expect_only_tg_errors([&] {
    tg::data::CharLMCorpus corpus = tg::data::char_lm_corpus_from_file(path, 4, 0.25);
    if (corpus.train->size() > 0) corpus.train->get(corpus.train->size() - 1);
    if (corpus.val->size() > 0) corpus.val->get(0);
  });
  return 0;
}
