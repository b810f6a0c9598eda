#include "data/char_lm.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "data/text.h"

namespace tg::data {

namespace {

std::shared_ptr<const std::vector<int32_t>> compact(const std::vector<int64_t>& ids) {
  auto out = std::make_shared<std::vector<int32_t>>();
  out->reserve(ids.size());
  for (int64_t id : ids) {
    if (id < 0) throw Error("CharLMDataset", fmt::format("negative token id {}", id));
    if (id > std::numeric_limits<int32_t>::max())
      throw Error("CharLMDataset", fmt::format("token id {} is above the largest vocabulary's", id));
    out->push_back(static_cast<int32_t>(id));
  }
  return out;
}

}  // namespace

CharLMDataset::CharLMDataset(const std::vector<int64_t>& ids, int64_t block_size, int64_t stride)
    : CharLMDataset(compact(ids), 0, std::ssize(ids), block_size, stride) {}

CharLMDataset::CharLMDataset(std::shared_ptr<const std::vector<int32_t>> ids, int64_t begin, int64_t end,
                             int64_t block_size, int64_t stride)
    : ids_(std::move(ids)), begin_(begin), end_(end), block_size_(block_size), stride_(stride) {
  if (block_size_ < 1 || stride_ < 1)
    throw Error("CharLMDataset", fmt::format("block_size and stride must be >= 1, got {} and {}", block_size_, stride_));
  if (!(0 <= begin_ && begin_ <= end_ && end_ <= std::ssize(*ids_)))
    throw Error("CharLMDataset", fmt::format("ids [{}, {}) are out of range for {} ids", begin_, end_, ids_->size()));
}

int64_t CharLMDataset::size() const {
  const int64_t n = end_ - begin_;
  return n < block_size_ + 1 ? 0 : (n - 1 - block_size_) / stride_ + 1;
}

Example CharLMDataset::get(int64_t index) const {
  if (index < 0 || index >= size())
    throw Error("CharLMDataset", fmt::format("index {} is out of range for {} windows", index, size()));
  const auto start = ids_->begin() + begin_ + index * stride_;
  return {std::vector<int64_t>(start, start + block_size_), std::vector<int64_t>(start + 1, start + block_size_ + 1)};
}

std::shared_ptr<CharLMDataset> CharLMDataset::with_stride(int64_t stride) const {
  return std::make_shared<CharLMDataset>(ids_, begin_, end_, block_size_, stride);
}

LMWindows lm_windows(std::shared_ptr<const std::vector<int32_t>> ids, int64_t block_size, double val_fraction,
                     int64_t stride, std::string_view source, std::string_view unit) {
  const char* op = "char_lm_corpus";
  if (!(val_fraction >= 0 && val_fraction < 1))
    throw Error(op, fmt::format("{}: val_fraction must be in [0, 1), got {}", source, val_fraction));
  const auto n = std::ssize(*ids);
  const auto n_val = static_cast<int64_t>(std::llround(static_cast<double>(n) * val_fraction));
  LMWindows windows{std::make_shared<CharLMDataset>(ids, 0, n - n_val, block_size, stride),
                    std::make_shared<CharLMDataset>(ids, n - n_val, n, block_size, stride)};
  if (windows.train->size() == 0 || (val_fraction > 0 && windows.val->size() == 0))
    throw Error(op, fmt::format("{}: {} {} split {} / {} are too few for block_size {} (each part needs "
                                "block_size + 1)", source, n, unit, n - n_val, n_val, block_size));
  return windows;
}

CharLMCorpus char_lm_corpus(std::string_view text, int64_t block_size, double val_fraction, int64_t stride,
                            std::string_view source) {
  CharTokenizer tokenizer = CharTokenizer::from_text(text, source);
  auto ids = std::make_shared<const std::vector<int32_t>>(tokenizer.encode_compact(text, source));
  LMWindows windows = lm_windows(std::move(ids), block_size, val_fraction, stride, source, "characters");
  return {std::move(tokenizer), std::move(windows.train), std::move(windows.val)};
}

CharLMCorpus char_lm_corpus_from_file(const std::string& path, int64_t block_size, double val_fraction,
                                      int64_t stride) {
  return char_lm_corpus(read_text_file(path), block_size, val_fraction, stride, path);
}

}  // namespace tg::data
