#include "data/token_windows.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "data/random.h"

namespace tg::data {

namespace {

constexpr const char* kTokenWindowsOp = "token windows";

}  // namespace

TokenWindowDataset::TokenWindowDataset(std::shared_ptr<const MappedTokenIds> ids, int64_t begin, int64_t end,
                                       int64_t block_size, int64_t id_offset, Starts starts, int64_t count,
                                       uint64_t seed)
    : ids_(std::move(ids)),
      begin_(begin),
      starts_count_(end - begin - block_size),
      block_size_(block_size),
      id_offset_(id_offset),
      starts_(starts),
      count_(starts == Starts::evenly_spaced ? std::min(count, std::max<int64_t>(starts_count_, 0)) : count),
      seed_(seed) {
  if (block_size < 1 || id_offset < 0 || count < 0)
    throw Error(kTokenWindowsOp, fmt::format("block_size must be >= 1, id_offset and the window count >= 0; got {}, {} and {}",
                                 block_size, id_offset, count));
  if (!(0 <= begin && begin <= end && end <= ids_->size()))
    throw Error(kTokenWindowsOp, fmt::format("ids [{}, {}) are out of range for {} ids", begin, end, ids_->size()));
  if (count > 0 && starts_count_ < 1)
    throw Error(kTokenWindowsOp, fmt::format("{}: ids [{}, {}) hold no window of block_size {} (it needs block_size + 1 ids)",
                                 ids_->path().string(), begin, end, block_size));
}

int64_t TokenWindowDataset::start(int64_t index) const {
  if (index < 0 || index >= count_)
    throw Error(kTokenWindowsOp, fmt::format("index {} is out of range for {} windows", index, count_));
  const auto k = static_cast<uint64_t>(index), n = static_cast<uint64_t>(starts_count_);
  if (starts_ == Starts::random) {
    Generator gen(seed_);
    gen.set_state(seed_, k << kCountersPerExample);
    return begin_ + static_cast<int64_t>(random_below(gen, n));
  }
  // floor(k * n / count) without the product's overflow
  const auto c = static_cast<uint64_t>(count_);
  return begin_ + static_cast<int64_t>(n / c * k + n % c * k / c);
}

Example TokenWindowDataset::get(int64_t index) const {
  std::vector<TokenId> ids(static_cast<size_t>(block_size_ + 1));
  ids_->read(start(index), ids);
  Example ex;
  ex.input.reserve(ids.size() - 1);
  ex.target.reserve(ids.size() - 1);
  for (size_t t = 0; t + 1 < ids.size(); ++t) {
    ex.input.push_back(id_offset_ + ids[t]);
    ex.target.push_back(id_offset_ + ids[t + 1]);
  }
  return ex;
}

TokenWindowSets token_id_file_windows(const std::filesystem::path& bin, const std::string& tokenizer_sha256,
                                      int64_t vocab_size, int64_t id_offset, int64_t block_size, double val_fraction,
                                      int64_t train_windows, int64_t val_windows, uint64_t seed) {
  if (!(val_fraction >= 0 && val_fraction < 1))
    throw Error(kTokenWindowsOp, fmt::format("{}: val_fraction must be in [0, 1), got {}", bin.string(), val_fraction));
  if (block_size < 1) throw Error(kTokenWindowsOp, fmt::format("{}: block_size must be >= 1, got {}", bin.string(), block_size));
  auto ids = std::make_shared<const MappedTokenIds>(bin, tokenizer_sha256, vocab_size);
  const int64_t n = ids->size();
  const auto n_val = static_cast<int64_t>(std::llround(static_cast<double>(n) * val_fraction));
  if (n - n_val < block_size + 1 || (val_fraction > 0 && n_val < block_size + 1))
    throw Error(kTokenWindowsOp, fmt::format("{}: {} ids split {} / {} are too few for block_size {} (each part needs "
                                 "block_size + 1)", bin.string(), n, n - n_val, n_val, block_size));
  using Starts = TokenWindowDataset::Starts;
  TokenWindowSets sets;
  sets.train = std::make_shared<TokenWindowDataset>(ids, 0, n - n_val, block_size, id_offset, Starts::random,
                                                    train_windows, seed);
  sets.val = std::make_shared<TokenWindowDataset>(ids, n - n_val, n, block_size, id_offset, Starts::evenly_spaced,
                                                  val_fraction > 0 ? val_windows : 0, seed);
  return sets;
}

std::shared_ptr<const TokenWindowDataset> token_id_file_scoring_windows(const std::filesystem::path& bin,
                                                                        const std::string& tokenizer_sha256,
                                                                        int64_t vocab_size, int64_t id_offset,
                                                                        int64_t block_size, int64_t count) {
  auto ids = std::make_shared<const MappedTokenIds>(bin, tokenizer_sha256, vocab_size);
  if (ids->size() < block_size + 1)
    throw Error(kTokenWindowsOp, fmt::format("{}: {} ids are too few for one window of the model's {} (and the id after it)",
                                 bin.string(), ids->size(), block_size));
  return std::make_shared<TokenWindowDataset>(ids, 0, ids->size(), block_size, id_offset,
                                              TokenWindowDataset::Starts::evenly_spaced, count, 0);
}

}  // namespace tg::data
