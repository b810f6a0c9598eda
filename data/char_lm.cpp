#include "data/char_lm.h"

#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "data/text.h"

namespace tg::data {

CharLMDataset::CharLMDataset(std::vector<int64_t> ids, int64_t block_size, int64_t stride)
    : ids_(std::move(ids)), block_size_(block_size), stride_(stride) {
  if (block_size_ < 1 || stride_ < 1)
    throw Error("CharLMDataset", fmt::format("block_size and stride must be >= 1, got {} and {}", block_size_, stride_));
  for (int64_t id : ids_)
    if (id < 0) throw Error("CharLMDataset", fmt::format("negative token id {}", id));
}

int64_t CharLMDataset::size() const {
  const auto n = static_cast<int64_t>(ids_.size());
  return n < block_size_ + 1 ? 0 : (n - 1 - block_size_) / stride_ + 1;
}

Example CharLMDataset::get(int64_t index) const {
  if (index < 0 || index >= size())
    throw Error("CharLMDataset", fmt::format("index {} is out of range for {} windows", index, size()));
  const auto start = ids_.begin() + index * stride_;
  return {std::vector<int64_t>(start, start + block_size_), std::vector<int64_t>(start + 1, start + block_size_ + 1)};
}

CharLMCorpus char_lm_corpus(std::string_view text, int64_t block_size, double val_fraction, int64_t stride,
                            std::string_view source) {
  const char* op = "char_lm_corpus";
  if (!(val_fraction >= 0 && val_fraction < 1))
    throw Error(op, fmt::format("{}: val_fraction must be in [0, 1), got {}", source, val_fraction));
  CharLMCorpus corpus{CharTokenizer::from_text(text, source), nullptr, nullptr};
  std::vector<int64_t> ids = corpus.tokenizer.vocab().encode(utf8_chars(text, source));
  const auto n = static_cast<int64_t>(ids.size());
  const auto n_val = static_cast<int64_t>(std::llround(static_cast<double>(n) * val_fraction));
  corpus.train = std::make_shared<CharLMDataset>(std::vector<int64_t>(ids.begin(), ids.end() - n_val), block_size, stride);
  corpus.val = std::make_shared<CharLMDataset>(std::vector<int64_t>(ids.end() - n_val, ids.end()), block_size, stride);
  if (corpus.train->size() == 0 || (val_fraction > 0 && corpus.val->size() == 0))
    throw Error(op, fmt::format("{}: {} characters split {} / {} are too few for block_size {} (each part needs "
                                "block_size + 1)", source, n, n - n_val, n_val, block_size));
  return corpus;
}

CharLMCorpus char_lm_corpus_from_file(const std::string& path, int64_t block_size, double val_fraction,
                                      int64_t stride) {
  return char_lm_corpus(read_text_file(path), block_size, val_fraction, stride, path);
}

}  // namespace tg::data
