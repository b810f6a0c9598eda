#include "data/bpe_training.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::data {

namespace {

// A distinct chunk of the corpus: its tokens so far and how often it occurs.
struct Word {
  std::vector<TokenId> ids;
  int64_t count = 0;
};

// The counts of adjacent pairs over all words (weighted by each word's count), which words hold
// each pair, and a heap to find the most frequent one. The heap is lazy: an entry whose count is
// no longer the pair's is skipped when it comes up.
class PairCounts {
 public:
  explicit PairCounts(std::vector<Word>& words) : words_(words) {
    for (size_t w = 0; w < words_.size(); ++w) add_word(w, +1);
    for (const auto& [key, count] : counts_) heap_.push({count, ~key});
  }

  // The most frequent pair (smallest ids among equals) and its count; count 0 when none is left.
  std::pair<uint64_t, int64_t> best() {
    while (!heap_.empty()) {
      const auto [count, inverted_key] = heap_.top();
      auto it = counts_.find(~inverted_key);
      if (it != counts_.end() && it->second == count) return {~inverted_key, count};
      heap_.pop();
    }
    return {0, 0};
  }

  // Replaces every occurrence of pair `key` by `merged` in the words holding it.
  void merge(uint64_t key, TokenId merged) {
    const TokenId a = static_cast<TokenId>(key >> 32), b = static_cast<TokenId>(key & 0xffffffffu);
    auto holders = where_.extract(key);
    for (size_t w : holders.mapped()) {
      std::vector<TokenId>& ids = words_[w].ids;
      if (!holds(ids, a, b)) continue;  // listed twice, or merged away by an earlier entry
      add_word(w, -1);
      merge_pair(ids, a, b, merged);
      add_word(w, +1);
    }
    counts_.erase(key);
    for (uint64_t changed : changed_)
      if (auto it = counts_.find(changed); it != counts_.end()) heap_.push({it->second, ~changed});
    changed_.clear();
  }

 private:
  static bool holds(const std::vector<TokenId>& ids, TokenId a, TokenId b) {
    for (size_t i = 0; i + 1 < ids.size(); ++i)
      if (ids[i] == a && ids[i + 1] == b) return true;
    return false;
  }

  // Adds (sign +1) or removes (-1) word w's pairs from the counts.
  void add_word(size_t w, int sign) {
    const Word& word = words_[w];
    for (size_t i = 0; i + 1 < word.ids.size(); ++i) {
      const uint64_t key = bpe_pair_key(word.ids[i], word.ids[i + 1]);
      int64_t& count = counts_[key];
      count += sign * word.count;
      if (count == 0) counts_.erase(key);
      if (sign > 0) where_[key].push_back(w);
      changed_.insert(key);
    }
  }

  std::vector<Word>& words_;
  std::unordered_map<uint64_t, int64_t> counts_;
  std::unordered_map<uint64_t, std::vector<size_t>> where_;
  std::unordered_set<uint64_t> changed_;
  std::priority_queue<std::pair<int64_t, uint64_t>> heap_;  // (count, ~key): the largest count, then the smallest key
};

std::vector<Word> distinct_chunks(const std::vector<std::string_view>& texts) {
  std::unordered_map<std::string_view, int64_t> counts;
  for (std::string_view text : texts)
    for (std::string_view chunk : bpe_chunks(text)) ++counts[chunk];
  std::vector<std::pair<std::string_view, int64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end());  // the words' order is the corpus's, not the hash table's
  std::vector<Word> words;
  words.reserve(sorted.size());
  for (const auto& [chunk, count] : sorted) {
    Word word{.ids = std::vector<TokenId>(chunk.size()), .count = count};
    for (size_t i = 0; i < chunk.size(); ++i) word.ids[i] = static_cast<unsigned char>(chunk[i]);
    words.push_back(std::move(word));
  }
  return words;
}

}  // namespace

BpeTokenizer train_bpe(const std::vector<std::string_view>& texts, const BpeTrainOptions& options) {
  const int64_t least = BpeTokenizer::kByteTokens + static_cast<int64_t>(options.specials.size());
  if (options.vocab_size < least || options.vocab_size > BpeTokenizer::kMaxVocab)
    throw Error("tokenizer", fmt::format("vocab_size must be in [{}, {}] (256 bytes and {} special tokens at "
                                         "least), got {}", least, BpeTokenizer::kMaxVocab, options.specials.size(),
                                         options.vocab_size));
  std::vector<Word> words = distinct_chunks(texts);
  PairCounts pairs(words);
  std::vector<BpeMerge> merges;
  while (static_cast<int64_t>(merges.size()) < options.vocab_size - least) {
    const auto [key, count] = pairs.best();
    if (count < 2) break;  // a pair seen once compresses nothing it will meet again
    merges.emplace_back(static_cast<TokenId>(key >> 32), static_cast<TokenId>(key & 0xffffffffu));
    pairs.merge(key, static_cast<TokenId>(BpeTokenizer::kByteTokens + static_cast<int64_t>(merges.size()) - 1));
  }
  return BpeTokenizer(std::move(merges), options.specials);
}

}  // namespace tg::data
