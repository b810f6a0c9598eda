#include "train/seq2seq_decode.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "ops/contiguous/contiguous.h"
#include "ops/cross_entropy/cross_entropy.h"
#include "ops/expand/expand.h"
#include "ops/log_softmax/log_softmax.h"
#include "ops/slice/slice.h"
#include "train/beam_search.h"
#include "train/seq2seq_data.h"

namespace tg::train {

namespace {

// `t` (1,...) repeated to k rows, or as it is when it has k rows already.
Tensor rows_for(const Tensor& t, int64_t k) {
  if (t.size(0) == k) return t;
  Shape shape = t.shape();
  shape[0] = k;
  return contiguous(expand(t, shape));
}

// Next-token log-probabilities of the prefixes, all decoded against `memory` (one row per
// prefix, or one row for all); the reserved tokens but <eos> get -infinity.
NextTokenLogProbs scorer(const Seq2SeqModel& model, const Tensor& memory, const Tensor& src_padding) {
  return [&model, memory, src_padding](const std::vector<std::vector<int64_t>>& prefixes) {
    const auto K = std::ssize(prefixes), t = std::ssize(prefixes[0]);
    std::vector<int64_t> ids;
    for (const auto& p : prefixes) {
      ids.push_back(data::kBosId);
      ids.insert(ids.end(), p.begin(), p.end());
    }
    const Tensor tgt = tensor_i64(ids, {K, t + 1}, memory.device());
    const Tensor logits = model.decode(tgt, rows_for(memory, K), rows_for(src_padding, K));  // (K,t+1,V)
    const Tensor last = log_softmax(contiguous(slice(logits, 1, t, t + 1)), -1);                 // (K,1,V)
    const std::vector<float> values = last.to_vector<float>();
    const int64_t V = model.config.num_classes;
    std::vector<std::vector<double>> rows(static_cast<size_t>(K));
    for (int64_t k = 0; k < K; ++k) {
      rows[k].assign(values.begin() + k * V, values.begin() + (k + 1) * V);
      for (int64_t v = 0; v < data::kNumReserved; ++v)
        if (v != kEosId) rows[k][v] = -std::numeric_limits<double>::infinity();
    }
    return rows;
  };
}

std::vector<data::Seq2SeqPair> inputs_only(const std::vector<std::string>& inputs, size_t lo, size_t hi) {
  std::vector<data::Seq2SeqPair> pairs;
  for (size_t i = lo; i < hi; ++i) pairs.push_back({inputs[i], ""});
  return pairs;
}

}  // namespace

std::vector<std::string> decode_inputs(Seq2SeqModel& model, const data::PairTokenizer& tokenizer,
                                       const std::vector<std::string>& inputs, const DecodeOptions& options) {
  if (options.beam < 0 || options.beam > kMaxBeam)
    throw Error("decode", fmt::format("beam must be in [0, {}] (0: greedy), got {}", kMaxBeam, options.beam));
  if (options.batch_size < 1) throw Error("decode", fmt::format("batch_size must be >= 1, got {}", options.batch_size));
  const int64_t max_len = model.config.max_len;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto tokens = std::ssize(encode_known(tokenizer, inputs[i], fmt::format("decode: input {}", i + 1)));
    if (tokens == 0 || tokens > max_len)
      throw Error("decode", fmt::format("input {} has {} {}: the model reads 1 to {}", i + 1, tokens, tokenizer.unit(),
                                        max_len));
  }
  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const Device device = model.embedding->weight.device();
  const SearchLimits limits{.max_tokens = max_len - 1, .eos = kEosId};
  const size_t step = options.beam == 0 ? static_cast<size_t>(options.batch_size) : 1;
  std::vector<std::string> outputs;
  for (size_t lo = 0; lo < inputs.size(); lo += step) {
    const size_t hi = std::min(inputs.size(), lo + step);
    const Seq2SeqBatch b = make_seq2seq_batch(inputs_only(inputs, lo, hi), tokenizer, device);
    const Tensor memory = model.encode(b.src, b.src_padding);
    const NextTokenLogProbs next = scorer(model, memory, b.src_padding);
    if (options.beam == 0) {
      for (const auto& tokens : greedy_search(next, static_cast<int64_t>(hi - lo), limits))
        outputs.push_back(tokenizer.decode(tokens));
    } else {
      outputs.push_back(tokenizer.decode(beam_search(next, options.beam, limits).tokens));
    }
  }
  model.train(was_training);
  return outputs;
}

EvalMetrics evaluate_seq2seq(Seq2SeqModel& model, const data::PairTokenizer& tokenizer,
                             const std::vector<data::Seq2SeqPair>& pairs, const DecodeOptions& options,
                             std::vector<std::string>* outputs) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> inputs;
  for (const data::Seq2SeqPair& p : pairs) inputs.push_back(p.input);
  const std::vector<std::string> decoded = decode_inputs(model, tokenizer, inputs, options);

  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const Device device = model.embedding->weight.device();
  double loss_sum = 0;
  int64_t scored = 0, correct = 0, exact = 0;
  for (size_t lo = 0; lo < pairs.size(); lo += static_cast<size_t>(options.batch_size)) {
    const size_t hi = std::min(pairs.size(), lo + static_cast<size_t>(options.batch_size));
    const std::vector<data::Seq2SeqPair> part(pairs.begin() + lo, pairs.begin() + hi);
    const Seq2SeqBatch b = make_seq2seq_batch(part, tokenizer, device);
    const Tensor logits = model.forward(b.src, b.src_padding, b.tgt_in, b.tgt_padding);  // (B,T,V)
    loss_sum += cross_entropy(logits, b.tgt_out, {.reduction = Reduction::sum}).item();
  }
  model.train(was_training);
  for (size_t i = 0; i < pairs.size(); ++i) {
    std::vector<int64_t> target = encode_known(tokenizer, pairs[i].output, "evaluate_seq2seq: target"),
                         got = encode_known(tokenizer, decoded[i], "evaluate_seq2seq: output");
    exact += target == got;
    target.push_back(kEosId), got.push_back(kEosId);
    for (size_t j = 0; j < target.size(); ++j) correct += j < got.size() && got[j] == target[j];
    scored += std::ssize(target);
  }
  if (outputs) *outputs = decoded;
  const double n = static_cast<double>(std::max<size_t>(pairs.size(), 1));
  return {.loss = loss_sum / static_cast<double>(std::max<int64_t>(scored, 1)),
          .token_accuracy = static_cast<double>(correct) / static_cast<double>(std::max<int64_t>(scored, 1)),
          .exact_match = static_cast<double>(exact) / n,
          .sequences = std::ssize(pairs),
          .ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
          .scored_tokens = scored};
}

}  // namespace tg::train
