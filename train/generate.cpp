#include "train/generate.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/rng.h"
#include "ops/slice/slice.h"
#include "train/kv_cache.h"

namespace tg::train {

namespace {

// The last row of logits (n,C) or (1,n,C) as doubles, from min_id on.
std::vector<double> last_row(const Tensor& logits, int64_t min_id) {
  const int64_t n = logits.size(-2);
  std::vector<double> row = to_dtype_copy(slice(logits, -2, n - 1, n), kF64).to_vector<double>();
  row.erase(row.begin(), row.begin() + min_id);
  return row;
}

bool ends_with(const std::vector<int64_t>& ids, size_t from, const std::vector<int64_t>& tail) {
  return !tail.empty() && ids.size() - from >= tail.size() && std::equal(tail.rbegin(), tail.rend(), ids.rbegin());
}

}  // namespace

void check_generate_options(const GenerateOptions& o, int64_t num_classes) {
  const auto fail = [](const std::string& what) { throw Error("generate", what); };
  if (o.max_new_tokens < 0) fail(fmt::format("max_new_tokens must be >= 0, got {}", o.max_new_tokens));
  if (!(std::isfinite(o.temperature) && o.temperature >= 0))
    fail(fmt::format("temperature must be a finite number >= 0, got {}", o.temperature));
  if (o.min_id < 0 || o.min_id >= num_classes)
    fail(fmt::format("min_id must be in [0, {}), got {}", num_classes, o.min_id));
  const int64_t candidates = num_classes - o.min_id;
  if (o.top_k < 0 || o.top_k > candidates)
    fail(fmt::format("top_k must be in [0, {}] (the tokens the model can produce; 0 = all), got {}", candidates,
                     o.top_k));
  if (!(o.top_p > 0 && o.top_p <= 1)) fail(fmt::format("top_p must be in (0, 1], got {}", o.top_p));
  if (o.temperature == 0 && (o.top_k > 0 || o.top_p < 1))
    fail("top_k and top_p restrict sampling: they need temperature > 0 (0 is greedy, always the likeliest)");
  for (int64_t id : o.stop)
    if (id < o.min_id || id >= num_classes)
      fail(fmt::format("stop id {} is outside the ids the model can produce [{}, {})", id, o.min_id, num_classes));
}

int64_t pick_next(const std::vector<double>& logits, const GenerateOptions& o, double u) {
  const auto N = std::ssize(logits);
  if (o.temperature == 0) return std::max_element(logits.begin(), logits.end()) - logits.begin();
  // candidates from likeliest to least likely, ties by lower index
  std::vector<int64_t> order(N);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
  std::vector<double> p(N);  // softmax(logits / temperature) in that order
  double total = 0;
  for (int64_t i = 0; i < N; ++i) total += p[i] = std::exp((logits[order[i]] - logits[order[0]]) / o.temperature);
  int64_t kept = o.top_k > 0 ? std::min<int64_t>(o.top_k, N) : N;
  if (o.top_p < 1) {
    double mass = 0;
    int64_t nucleus = 0;
    while (nucleus < kept && mass < o.top_p * total) mass += p[nucleus++];
    kept = std::max<int64_t>(nucleus, 1);
  }
  const double kept_total = std::accumulate(p.begin(), p.begin() + kept, 0.0);
  double cumulative = 0;
  for (int64_t i = 0; i < kept; ++i)
    if ((cumulative += p[i] / kept_total) >= u) return order[i];
  return order[kept - 1];  // u within rounding of 1
}

std::vector<int64_t> generate(TransformerModel& model, std::vector<int64_t> ids, const GenerateOptions& options) {
  if (!model.config.causal)
    throw Error("generate", "the model is not causal: text generation needs a language-model (task lm) checkpoint");
  if (ids.empty()) throw Error("generate", "the prompt is empty");
  check_generate_options(options, model.config.num_classes);
  for (int64_t id : ids)
    if (id < 0 || id >= model.config.vocab_size)
      throw Error("generate", fmt::format("prompt id {} is outside the vocabulary [0, {})", id, model.config.vocab_size));
  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  const int64_t max_len = model.config.max_len;
  const Device device = model.embedding->weight.device();
  // the last max_len ids: what both paths condition the next token on
  const auto window = [&] {
    return std::vector<int64_t>(ids.end() - std::min<int64_t>(std::ssize(ids), max_len), ids.end());
  };
  KvCache cache(model);
  const std::function<std::vector<double>()> next_logits = [&] {
    if (!options.use_cache) {
      const std::vector<int64_t> context = window();
      return last_row(model.forward(tensor_i64(context, {1, std::ssize(context)}, device)), options.min_id);  // (1,T,C)
    }
    if (cache.size() > 0 && cache.size() < max_len) return last_row(cache.append({ids.back()}), options.min_id);
    cache.clear();  // the first call, or the window slid past max_len
    return last_row(cache.append(window()), options.min_id);  // (T,C)
  };
  const size_t prompt_size = ids.size();
  Generator gen(options.seed);
  for (int64_t n = 0; n < options.max_new_tokens; ++n) {
    const std::vector<double> logits = next_logits();
    const double u = options.temperature > 0 ? uniform_from_bits(philox(gen.seed(), gen.reserve(1, 1))[0]) : 0;
    ids.push_back(options.min_id + pick_next(logits, options, u));
    if (ends_with(ids, prompt_size, options.stop)) {
      ids.resize(ids.size() - options.stop.size());
      break;
    }
  }
  model.train(was_training);
  return ids;
}

}  // namespace tg::train
