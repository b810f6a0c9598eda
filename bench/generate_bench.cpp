// generate_bench: next-token speed of a GPT-style model (train/model.h, arch gpt) at growing
// context lengths, through the key/value cache (train/kv_cache.h) and without it (a forward of
// the whole context per token, as generate() does with use_cache = false).
//
//   for L in --lengths:  the first L - n tokens are read (the cache's prefill, not timed), then
//                        n = --tokens tokens one at a time, timed:
//     cached:    cache.append(token)                       (1,C) logits, O(L) per token
//     uncached:  model.forward(ids[0 : t+1])[t]            (1,t+1,C), O(L^2) attention per token
//   -> a Markdown table: L, tokens/s of each, and their ratio.
// Random weights, arbitrary tokens (the speed does not depend on them); float32, CPU, --threads threads.
// Flags: --threads N (default 1), --tokens N (16), --lengths a,b,... (64,128,256,512,1024; at
// most the model's max_len, 1024).
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/int_list.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "train/kv_cache.h"
#include "train/model.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  int threads = 1;
  int64_t tokens = 16;
  std::vector<int64_t> lengths = {64, 128, 256, 512, 1024};
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::runtime_error(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--threads") a.threads = std::stoi(value);
    else if (flag == "--tokens") a.tokens = std::stoll(value);
    else if (flag == "--lengths") a.lengths = tg::bench::parse_int_list(value);
    else {
      throw std::runtime_error("unknown flag " + flag + " (--threads, --tokens, --lengths)");
    }
  }
  return a;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace tg;
  const Args args = parse(argc, argv);
  omp_set_num_threads(args.threads);
  const train::ModelConfig config{.vocab_size = 64, .num_classes = 64, .max_len = 1024, .d_model = 128, .heads = 4,
                                  .layers = 4, .ff = 512, .causal = true, .arch = "gpt", .tie_weights = true};
  manual_seed(0);
  train::TransformerModel model(config);
  model.eval();
  NoGradGuard no_grad;
  std::printf("GPT model: d_model %lld, %lld heads, %lld layers, ff %lld, vocabulary %lld, float32, %d thread(s); "
              "%lld tokens timed per length\n\n", (long long)config.d_model, (long long)config.heads,
              (long long)config.layers, (long long)config.ff, (long long)config.vocab_size, args.threads,
              (long long)args.tokens);
  std::printf("| context length | cached tokens/s | uncached tokens/s | cached / uncached |\n");
  std::printf("|---:|---:|---:|---:|\n");
  for (const int64_t L : args.lengths) {
    if (L <= args.tokens || L > config.max_len)
      throw std::runtime_error("every length must be in (--tokens, max_len = 1024], got " + std::to_string(L));
    std::vector<int64_t> ids(L);
    for (int64_t t = 0; t < L; ++t) ids[t] = (t * 7919 + 13) % config.vocab_size;  // any tokens will do
    const int64_t prefix = L - args.tokens;

    train::KvCache cache(model);
    cache.append(std::vector<int64_t>(ids.begin(), ids.begin() + prefix));
    auto start = Clock::now();
    for (int64_t t = prefix; t < L; ++t) cache.append(std::vector<int64_t>{ids[t]});
    const double cached = static_cast<double>(args.tokens) / seconds_since(start);

    start = Clock::now();
    for (int64_t t = prefix; t < L; ++t)
      model.forward(tensor_i64(std::vector<int64_t>(ids.begin(), ids.begin() + t + 1), {1, t + 1}));
    const double uncached = static_cast<double>(args.tokens) / seconds_since(start);
    std::printf("| %lld | %.0f | %.1f | %.1fx |\n", (long long)L, cached, uncached, cached / uncached);
    std::fflush(stdout);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "generate_bench: %s\n", e.what());
  return 1;
}
