#include "train/generate.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/rng.h"
#include "ops/slice/slice.h"

namespace tg::train {

namespace {

// An index drawn from softmax(logits / temperature), by inverting the cumulative sum at u.
int64_t draw(const std::vector<double>& logits, double temperature, double u) {
  const double top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double total = 0;
  for (size_t c = 0; c < logits.size(); ++c) total += p[c] = std::exp((logits[c] - top) / temperature);
  double cumulative = 0;
  for (size_t c = 0; c < p.size(); ++c)
    if ((cumulative += p[c] / total) >= u) return static_cast<int64_t>(c);
  return static_cast<int64_t>(p.size()) - 1;  // u within rounding of 1
}

}  // namespace

std::vector<int64_t> generate(TransformerModel& model, std::vector<int64_t> ids, const GenerateOptions& options) {
  if (!model.config.causal)
    throw Error("generate", "the model is not causal: text generation needs a language-model (task lm) checkpoint");
  if (ids.empty()) throw Error("generate", "the prompt is empty");
  if (options.max_new_tokens < 0 || !(options.temperature >= 0))
    throw Error("generate", fmt::format("need max_new_tokens >= 0 and temperature >= 0, got {} and {}",
                                        options.max_new_tokens, options.temperature));
  if (options.min_id < 0 || options.min_id >= model.config.num_classes)
    throw Error("generate", fmt::format("min_id must be in [0, {}), got {}", model.config.num_classes, options.min_id));
  for (int64_t id : ids)
    if (id < 0 || id >= model.config.vocab_size)
      throw Error("generate", fmt::format("prompt id {} is outside the vocabulary [0, {})", id, model.config.vocab_size));
  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  Generator gen(options.seed);
  const Device device = model.embedding->weight.device();
  for (int64_t n = 0; n < options.max_new_tokens; ++n) {
    const auto T = std::min<int64_t>(std::ssize(ids), model.config.max_len);
    // (1,T), on the model's device (a model trained with --device cuda stays there)
    Tensor context = tensor_i64(std::vector<int64_t>(ids.end() - T, ids.end()), {1, T}, device);
    Tensor logits = model.forward(context);  // (1,T,C)
    std::vector<double> last = to_dtype_copy(slice(logits, 1, T - 1, T), kF64).to_vector<double>();  // (1,1,C)
    last.erase(last.begin(), last.begin() + options.min_id);
    const int64_t next = options.temperature == 0
                             ? std::max_element(last.begin(), last.end()) - last.begin()
                             : draw(last, options.temperature, uniform_from_bits(philox(gen.seed(), gen.reserve(1, 1))[0]));
    ids.push_back(options.min_id + next);
  }
  model.train(was_training);
  return ids;
}

}  // namespace tg::train
