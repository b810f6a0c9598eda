#pragma once
// Autoregressive decoding over any next-token scorer: greedy (the likeliest token at every step,
// many sequences at once) and beam search (one sequence, the `beam` best prefixes kept).
//
// A scorer maps K prefixes (token ids written so far, all of one length) to K rows of V
// log-probabilities of the next token; -infinity marks a token that may not come next.
// Decoding ends a sequence at `eos` (left out of the result) or after max_tokens tokens.
//
// Beam search scores a hypothesis by the plain sum of its tokens' log-probabilities (no length
// normalisation), the <eos> included. Each step expands every live hypothesis by every token,
// keeps the `beam` best candidates (ties: earlier hypothesis, then lower token id), and moves
// those ending in eos to the finished set; a hypothesis of max_tokens tokens can only be ended
// by eos. It stops when no hypothesis is live, or when the best finished score is at least the
// best live one (a log-probability sum only falls). The result is the best finished hypothesis.
// With beam 1 it writes exactly greedy_search's tokens.
#include <cstdint>
#include <functional>
#include <vector>

namespace tg::train {

using NextTokenLogProbs =
    std::function<std::vector<std::vector<double>>(const std::vector<std::vector<int64_t>>& prefixes)>;

struct SearchLimits {
  int64_t max_tokens = 0;  // the most tokens a result has (eos not counted); >= 0
  int64_t eos = 0;         // the id that ends a sequence
};

// `count` sequences decoded together: the scorer gets all of them every step (row i is
// sequence i; a finished one goes on being extended, and the extension is dropped). Ties go to
// the lower token id.
std::vector<std::vector<int64_t>> greedy_search(const NextTokenLogProbs& next, int64_t count,
                                                const SearchLimits& limits);

struct Hypothesis {
  std::vector<int64_t> tokens;  // eos left out
  double log_prob = 0;          // sum over the tokens and the closing eos
};

// beam >= 1. The scorer gets 1..beam prefixes of one sequence per step.
Hypothesis beam_search(const NextTokenLogProbs& next, int64_t beam, const SearchLimits& limits);

}  // namespace tg::train
