// checkpoint_activations_bench: the gpt training step (train/model.h, arch gpt) with and without
// activation checkpointing (train --checkpoint-activations: each layer through tg::checkpoint),
// at growing block sizes: peak memory held by tensors and ms/step.
//
//   model: nanoGPT's "baby GPT": vocab 65, d_model 128, 4 heads, 4 layers, ff 512, dropout 0.2
//   step:  forward + cross_entropy + backward + AdamW (lr 1e-3) + zero_grad, float32, on --device
//   peak:  the allocator's peak_in_use_bytes (core/allocator.h) over the timed steps: parameters,
//          gradients, AdamW's moments and every activation alive at once
//   ms:    median of --steps steps after one untimed step, in each of --rounds rounds that run
//          plain and checkpointed in turn (a fresh model each), so that a busy machine slows both
//          alike; the table gives the median round
// -> a Markdown table; the first step's loss is printed for both, so that they can be compared.
// Flags: --threads N (0: OpenMP's default), --steps N (3), --rounds N (3), --batch N (12),
// --blocks a,b,... (256,1024), --device cpu|cuda (cpu).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/int_list.h"
#include "core/allocator.h"
#include "core/cuda/cuda_runtime.h"
#include "core/factories.h"
#include "ops/cross_entropy/cross_entropy.h"
#include "optim/adam.h"
#include "train/config.h"
#include "train/model.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  int threads = 0;
  int steps = 3;
  int rounds = 3;
  int64_t batch = 12;
  std::vector<int64_t> blocks = {256, 1024};
  std::string device = "cpu";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::runtime_error(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--threads") a.threads = std::stoi(value);
    else if (flag == "--steps") a.steps = std::stoi(value);
    else if (flag == "--rounds") a.rounds = std::stoi(value);
    else if (flag == "--batch") a.batch = std::stoll(value);
    else if (flag == "--device") a.device = value;
    else if (flag == "--blocks") a.blocks = tg::bench::parse_int_list(value);
    else {
      throw std::runtime_error("unknown flag " + flag + " (--threads, --steps, --rounds, --batch, --blocks, --device)");
    }
  }
  if (a.steps < 1 || a.rounds < 1 || a.batch < 1) throw std::runtime_error("--steps, --rounds and --batch must be positive");
  return a;
}

struct Result {
  double peak_mib = 0, ms = 0, first_loss = 0;
};

// n token ids in [0, vocab) from a fixed LCG: the same batch for every configuration.
tg::Tensor random_ids(const tg::Shape& shape, int64_t vocab, uint64_t seed, tg::Device device) {
  std::vector<int64_t> ids(static_cast<size_t>(shape[0] * shape[1]));
  for (int64_t& id : ids) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    id = static_cast<int64_t>((seed >> 33) % static_cast<uint64_t>(vocab));
  }
  return tg::tensor_i64(ids, shape, device);
}

Result run(const Args& args, int64_t block, bool checkpointed) {
  using namespace tg;
  const Device device = train::parse_device(args.device);
  const int64_t vocab = 65;
  manual_seed(0);
  train::TransformerModel model({.vocab_size = vocab, .num_classes = vocab, .max_len = block, .d_model = 128,
                                 .heads = 4, .layers = 4, .ff = 512, .dropout = 0.2, .causal = true,
                                 .arch = "gpt"});
  if (!device.is_cpu()) model.to_(device);
  model.set_checkpoint_activations(checkpointed);
  model.train();
  std::vector<NamedParameter> params;
  for (auto& [name, t] : model.named_parameters()) params.push_back({name, t});
  AdamW optimizer(params, {.lr = 1e-3});
  const Shape shape{args.batch, block};
  const Tensor inputs = random_ids(shape, vocab, 1, device), targets = random_ids(shape, vocab, 2, device);

  Result r;
  std::vector<double> ms;
  for (int step = 0; step <= args.steps; ++step) {
    if (step == 1) reset_peak_memory_stats(device);  // the timed steps; the first allocated AdamW's moments
    if (device.is_cuda()) cuda_synchronize();
    const auto start = Clock::now();
    Tensor loss = cross_entropy(model.forward(inputs), targets);
    if (step == 0) r.first_loss = loss.item();
    loss.backward();
    optimizer.step();
    optimizer.zero_grad();
    if (device.is_cuda()) cuda_synchronize();
    if (step > 0) ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  r.ms = ms[ms.size() / 2];
  r.peak_mib = static_cast<double>(memory_stats(device).peak_in_use_bytes) / (1024.0 * 1024.0);
  return r;
}

// The median round's ms of `rounds` (plain or checkpointed); peak and loss are the same in every round.
Result median_round(std::vector<Result> rounds) {
  std::sort(rounds.begin(), rounds.end(), [](const Result& a, const Result& b) { return a.ms < b.ms; });
  return rounds[rounds.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse(argc, argv);
  if (args.threads > 0) omp_set_num_threads(args.threads);
  std::printf("gpt training step (vocab 65, d_model 128, 4 heads, 4 layers, ff 512, dropout 0.2), batch %lld, "
              "float32 on %s, %d threads; median of %d steps, median of %d interleaved rounds\n\n",
              static_cast<long long>(args.batch), args.device.c_str(), omp_get_max_threads(), args.steps, args.rounds);
  std::printf("| block | plain peak MiB | checkpointed peak MiB | plain ms/step | checkpointed ms/step | "
              "first loss plain / checkpointed |\n|---:|---:|---:|---:|---:|---|\n");
  for (int64_t block : args.blocks) {
    std::vector<Result> plain_rounds, recomputed_rounds;
    for (int round = 0; round < args.rounds; ++round) {
      plain_rounds.push_back(run(args, block, false));
      recomputed_rounds.push_back(run(args, block, true));
    }
    const Result plain = median_round(plain_rounds), recomputed = median_round(recomputed_rounds);
    std::printf("| %lld | %.1f | %.1f | %.1f | %.1f | %.6f / %.6f |\n", static_cast<long long>(block),
                plain.peak_mib, recomputed.peak_mib, plain.ms, recomputed.ms, plain.first_loss,
                recomputed.first_loss);
    std::fflush(stdout);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "checkpoint_activations_bench: %s\n", e.what());
  return 1;
}
