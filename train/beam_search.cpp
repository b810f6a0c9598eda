#include "train/beam_search.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::train {

namespace {

constexpr const char* kBeamSearchOp = "decode";

// The scorer's rows, checked: one per prefix, each of the same width V >= 1.
std::vector<std::vector<double>> scores(const NextTokenLogProbs& next,
                                        const std::vector<std::vector<int64_t>>& prefixes) {
  std::vector<std::vector<double>> rows = next(prefixes);
  if (rows.size() != prefixes.size())
    throw Error(kBeamSearchOp, fmt::format("the scorer returned {} rows for {} prefixes", rows.size(), prefixes.size()));
  for (const auto& row : rows)
    if (row.empty() || row.size() != rows[0].size())
      throw Error(kBeamSearchOp, "the scorer's rows must be non-empty and equally long");
  return rows;
}

int64_t argmax(const std::vector<double>& row) {  // the first maximum
  return std::max_element(row.begin(), row.end()) - row.begin();
}

void check_limits(const SearchLimits& limits) {
  if (limits.max_tokens < 0) throw Error(kBeamSearchOp, fmt::format("max_tokens must be >= 0, got {}", limits.max_tokens));
}

}  // namespace

std::vector<std::vector<int64_t>> greedy_search(const NextTokenLogProbs& next, int64_t count,
                                                const SearchLimits& limits) {
  check_limits(limits);
  std::vector<std::vector<int64_t>> prefixes(static_cast<size_t>(count));
  std::vector<bool> done(static_cast<size_t>(count), false);
  std::vector<std::vector<int64_t>> results(static_cast<size_t>(count));
  const auto live = [&] { return std::find(done.begin(), done.end(), false) != done.end(); };
  for (int64_t step = 0; step < limits.max_tokens && live(); ++step) {
    const std::vector<std::vector<double>> rows = scores(next, prefixes);
    for (size_t i = 0; i < prefixes.size(); ++i) {
      const int64_t token = argmax(rows[i]);
      if (!done[i] && token == limits.eos) done[i] = true;
      else if (!done[i]) results[i].push_back(token);
      prefixes[i].push_back(token);
    }
  }
  return results;
}

Hypothesis beam_search(const NextTokenLogProbs& next, int64_t beam, const SearchLimits& limits) {
  check_limits(limits);
  if (beam < 1) throw Error(kBeamSearchOp, fmt::format("beam must be >= 1, got {}", beam));
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  std::vector<Hypothesis> live = {Hypothesis{}};
  Hypothesis best_finished{.tokens = {}, .log_prob = kNone};
  bool any_finished = false;
  for (int64_t step = 0; !live.empty(); ++step) {
    std::vector<std::vector<int64_t>> prefixes;
    for (const Hypothesis& h : live) prefixes.push_back(h.tokens);
    const std::vector<std::vector<double>> rows = scores(next, prefixes);
    struct Candidate {
      double log_prob;
      size_t hypothesis;
      int64_t token;
    };
    std::vector<Candidate> candidates;
    for (size_t h = 0; h < live.size(); ++h)
      for (int64_t v = 0; v < std::ssize(rows[h]); ++v) {
        if (step == limits.max_tokens && v != limits.eos) continue;  // at the length limit only eos may follow
        if (rows[h][v] == kNone) continue;
        candidates.push_back({live[h].log_prob + rows[h][v], h, v});
      }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.log_prob > b.log_prob; });
    if (std::ssize(candidates) > beam) candidates.resize(static_cast<size_t>(beam));
    std::vector<Hypothesis> next_live;
    for (const Candidate& c : candidates) {
      if (c.token == limits.eos) {
        if (!any_finished || c.log_prob > best_finished.log_prob)
          best_finished = {live[c.hypothesis].tokens, c.log_prob};
        any_finished = true;
        continue;
      }
      Hypothesis h{live[c.hypothesis].tokens, c.log_prob};
      h.tokens.push_back(c.token);
      next_live.push_back(std::move(h));
    }
    live = std::move(next_live);
    if (any_finished && !live.empty() && best_finished.log_prob >= live.front().log_prob) break;
  }
  if (!any_finished) throw Error(kBeamSearchOp, "no hypothesis could be ended (the scorer never allows eos)");
  return best_finished;
}

}  // namespace tg::train
