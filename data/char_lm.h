#pragma once
// Character-level language modelling on any UTF-8 text. For a block size T, the window
// starting at character t is
//   input  = chars[t .. t+T)
//   target = chars[t+1 .. t+T+1)       (every position scored: predict the next character)
// The encoder must not look ahead: the model applies a causal mask (causal_mask(T) from
// ops/attention) on top of the batch's padding mask. Windows start every `stride` characters.
//
// With no text file at hand, grammar_corpus() (data/grammar_corpus.h) gives one.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data/char_tokenizer.h"
#include "data/example.h"

namespace tg::data {

// The windows of a sequence of token ids, made on demand (no copy per window). The ids are
// held in 4 bytes each and shared: a corpus's training and validation windows, and the same
// ids with another stride, use one sequence.
class CharLMDataset : public Dataset {
 public:
  // ids.size() >= block_size + 1 gives at least one window; fewer gives none.
  CharLMDataset(const std::vector<int64_t>& ids, int64_t block_size, int64_t stride = 1);
  // The windows of ids[begin, end).
  CharLMDataset(std::shared_ptr<const std::vector<int32_t>> ids, int64_t begin, int64_t end, int64_t block_size,
                int64_t stride = 1);
  int64_t size() const override;  // (ids - 1 - T) / stride + 1 windows
  Example get(int64_t index) const override;
  int64_t block_size() const { return block_size_; }
  // The same ids, with windows every `stride` ids.
  std::shared_ptr<CharLMDataset> with_stride(int64_t stride) const;

 private:
  std::shared_ptr<const std::vector<int32_t>> ids_;
  int64_t begin_, end_;
  int64_t block_size_;
  int64_t stride_;
};

struct CharLMCorpus {
  CharTokenizer tokenizer;               // every character of the text
  std::shared_ptr<CharLMDataset> train;  // the first (1 - val_fraction) of the characters
  std::shared_ptr<CharLMDataset> val;    // the rest (no windows when val_fraction is 0)
};

struct LMWindows {
  std::shared_ptr<CharLMDataset> train, val;
};

// The windows of the token ids of a text, split by position: the first (1 - val_fraction) of
// the ids train, the rest validate; each non-empty part must hold at least one window. `unit`
// names the ids in errors ("characters", "tokens").
LMWindows lm_windows(std::shared_ptr<const std::vector<int32_t>> ids, int64_t block_size, double val_fraction,
                     int64_t stride, std::string_view source, std::string_view unit);

// Splits `text` by characters (the split is positional, not random, so that no window of
// val overlaps train). Each non-empty part must hold at least one window. `source` names the
// text in errors (a file name). Memory: the ids, 4 bytes a character, and no copy of the text.
CharLMCorpus char_lm_corpus(std::string_view text, int64_t block_size, double val_fraction = 0.1,
                            int64_t stride = 1, std::string_view source = "text");
CharLMCorpus char_lm_corpus_from_file(const std::string& path, int64_t block_size, double val_fraction = 0.1,
                                      int64_t stride = 1);

}  // namespace tg::data
