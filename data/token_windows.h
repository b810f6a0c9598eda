#pragma once
// Language-model windows over a memory-mapped token id file (data/mapped_token_ids.h), for
// corpora larger than memory. As in char_lm.h, the window starting at id t is
//   input  = id_offset + ids[t .. t+T)
//   target = id_offset + ids[t+1 .. t+T+1)
// where id_offset shifts the file's ids past the ids the model reserves for itself.
//
// The ids split by position: the first (1 - val_fraction) train, the rest validate (as
// char_lm_corpus splits). Nothing grows with the corpus: no list of windows, no copy of ids.
//   - Training example i is the window at a random start in the training part, drawn from
//     Philox keyed by (seed, i) the way the synthetic tasks draw their examples (train/task_data.cpp),
//     as nanoGPT samples random windows: any number of examples, each the same on every machine.
//   - Validation holds val_windows windows (fewer if the part has fewer starts) evenly spaced
//     over the validation part: a bounded evaluation, whatever the corpus's size.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "data/example.h"
#include "data/mapped_token_ids.h"

namespace tg::data {

// The windows of ids [begin, end) of a mapped file: `count` of them, window k starting at
// begin + start(k) for start(k) in [0, end - begin - T).
class TokenWindowDataset : public Dataset {
 public:
  enum class Starts { random, evenly_spaced };
  TokenWindowDataset(std::shared_ptr<const MappedTokenIds> ids, int64_t begin, int64_t end, int64_t block_size,
                     int64_t id_offset, Starts starts, int64_t count, uint64_t seed);
  int64_t size() const override { return count_; }
  Example get(int64_t index) const override;
  int64_t start(int64_t index) const;  // the window's first id, in the file

 private:
  std::shared_ptr<const MappedTokenIds> ids_;
  int64_t begin_, starts_count_;  // starts_count_: the windows of the part, end - begin - T
  int64_t block_size_, id_offset_;
  Starts starts_;
  int64_t count_;
  uint64_t seed_;
};

struct TokenWindowSets {
  std::shared_ptr<const TokenWindowDataset> train, val;  // val is empty when val_fraction is 0
};

// `bin` made by the tokenizer whose bpe_sha256 is `tokenizer_sha256` (vocab_size ids); each
// part must hold a window (block_size + 1 ids), or it is an error naming the file and the split.
TokenWindowSets token_id_file_windows(const std::filesystem::path& bin, const std::string& tokenizer_sha256,
                                      int64_t vocab_size, int64_t id_offset, int64_t block_size, double val_fraction,
                                      int64_t train_windows, int64_t val_windows, uint64_t seed);

// The windows that score a whole token id file (eval --data): at most `count`, evenly spaced over
// all its ids, so that a corpus of any size scores in bounded time.
std::shared_ptr<const TokenWindowDataset> token_id_file_scoring_windows(const std::filesystem::path& bin,
                                                                        const std::string& tokenizer_sha256,
                                                                        int64_t vocab_size, int64_t id_offset,
                                                                        int64_t block_size, int64_t count);

}  // namespace tg::data
