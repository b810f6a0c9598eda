#pragma once
// Text generation with a causal model (the character language model), either arch:
//   repeat up to max_new_tokens times:
//     logits = the model's logits for the next position given the last max_len ids    (C)
//     next   = pick_next(logits[min_id:], options, u)   u a uniform draw (sampling only)
//     stop once the generated ids end with `stop` (which the result leaves out)
// With use_cache (the default) the logits come from a KvCache (train/kv_cache.h): the prompt
// once, then one position per token. Without it every token re-runs model.forward on the
// whole context. Both give the same logits, so the same ids. Past max_len positions both
// slide the window: the context is the last max_len ids, which the cache re-reads in full
// (positions are absolute), so from there on a token costs a whole forward either way.
//
// pick_next, given the logits l (N) of the candidates:
//   temperature == 0   greedy: the argmax (the first of equal maxima)
//   temperature  > 0   p = softmax(l / temperature), then
//     top_k > 0        only the top_k likeliest candidates (ties broken by lower id)
//     top_p < 1        only the smallest set of likeliest candidates whose p sums to >= top_p
//                      (the nucleus; the likeliest one always)
//     the kept p renormalised; the candidate where their cumulative sum reaches u
// The draws come from a Philox Generator(seed), one per token: the same seed gives the same text.
#include <cstdint>
#include <vector>

#include "train/model.h"

namespace tg::train {

struct GenerateOptions {
  int64_t max_new_tokens = 200;
  double temperature = 0;  // 0 = greedy; > 0 samples
  int64_t top_k = 0;       // 0 = every candidate; else in [1, candidates]; sampling only
  double top_p = 1;        // in (0, 1]; 1 = every candidate; sampling only
  uint64_t seed = 0;
  int64_t min_id = 0;      // ids below it are never produced (data::kNumReserved: no reserved tokens)
  std::vector<int64_t> stop{};  // non-empty: generation ends once the new ids end with these
  bool use_cache = true;      // KvCache; false re-runs the whole context for every token
};

// The checks generate() makes of `options` for a model with `num_classes` classes: a
// tg::Error("generate", ...) naming the field and its limit.
void check_generate_options(const GenerateOptions& options, int64_t num_classes);

// The candidate index (into `logits`) chosen as above; u in [0, 1) is read only when sampling.
int64_t pick_next(const std::vector<double>& logits, const GenerateOptions& options, double u);

// Returns prompt followed by the generated ids (without a final `stop`). The model must be
// causal and the prompt non-empty (tg::Error("generate", ...) otherwise). Runs in evaluation
// mode without recording; the model's mode is restored.
std::vector<int64_t> generate(TransformerModel& model, std::vector<int64_t> prompt, const GenerateOptions& options);

}  // namespace tg::train
