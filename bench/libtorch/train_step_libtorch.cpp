// train_step_libtorch: the libtorch counterpart of bench/train_step_bench.cpp, the same model
// (train_step_common.h), the same configs, the same JSON line. Built only with
// -DTAPEGRAD_BENCH_LIBTORCH=ON where CMake finds Torch (Debian's libtorch-dev).
//
//   tapegrad_train_step_libtorch [--config toy|larger] [--threads N] [--steps N] [--warmup N]
//
// --threads sets libtorch's intra-op (OpenMP) threads, torch::set_num_threads. libtorch's
// matrix products run in OpenBLAS, whose own threads OPENBLAS_NUM_THREADS sets (read at load
// time, so only from the environment); both are printed. libtorch's C++ TransformerEncoderLayer
// is sequence-first: x (T,B,E).
#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/train_step_common.h"

namespace {

using train_step_bench::Config;
using train_step_bench::random_ids;

// tokens (T,B) int64 -> logits (T,B,V)
//   x = embedding(tokens) + pos.weight[0:T] (broadcast over B); post-LN encoder; head(x)
struct ModelImpl : torch::nn::Module {
  explicit ModelImpl(const Config& c)
      : embedding(register_module("embedding", torch::nn::Embedding(c.vocab, c.d_model))),
        pos(register_module("pos", torch::nn::Embedding(c.seq, c.d_model))),
        encoder(register_module(
            "encoder", torch::nn::TransformerEncoder(torch::nn::TransformerEncoderOptions(
                                                         torch::nn::TransformerEncoderLayerOptions(c.d_model, c.heads)
                                                             .dim_feedforward(c.ffn)
                                                             .dropout(0.1),
                                                         c.layers)))),
        head(register_module("head", torch::nn::Linear(c.d_model, c.vocab))) {}

  torch::Tensor forward(const torch::Tensor& tokens) {
    const int64_t T = tokens.size(0);
    torch::Tensor x = embedding(tokens) + pos->weight.slice(0, 0, T).unsqueeze(1);  // (T,B,E)
    return head(encoder(x));
  }

  torch::nn::Embedding embedding, pos;
  torch::nn::TransformerEncoder encoder;
  torch::nn::Linear head;
};
TORCH_MODULE(Model);

// ids laid out (B,T) as the tapegrad benchmark has them, returned (T,B).
torch::Tensor sequence_first(std::vector<int64_t> ids, const Config& c) {
  return torch::tensor(ids, torch::kInt64).view({c.batch, c.seq}).t().contiguous();
}

}  // namespace

int main(int argc, char** argv) {
  const train_step_bench::Args args = train_step_bench::parse_args(argc, argv, argv[0]);
  const Config& c = args.config;
  torch::set_num_threads(args.threads);
  torch::manual_seed(0);

  Model model(c);
  model->train();
  torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(1e-3).weight_decay(0.01));
  const torch::Tensor tokens = sequence_first(random_ids(c.batch * c.seq, c.vocab, 1), c);
  const torch::Tensor targets = sequence_first(random_ids(c.batch * c.seq, c.vocab, 2), c);

  std::vector<double> ms;
  double loss_first = 0, loss_last = 0;
  double cpu0 = 0;
  for (int step = 0; step < args.warmup + args.steps; ++step) {
    if (step == args.warmup) cpu0 = train_step_bench::process_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    torch::Tensor logits = model->forward(tokens);  // (T,B,V)
    torch::Tensor loss = torch::nn::functional::cross_entropy(logits.view({-1, c.vocab}), targets.view({-1}));
    loss.backward();
    optimizer.step();
    optimizer.zero_grad();
    const auto t1 = std::chrono::steady_clock::now();
    loss_last = loss.item<double>();
    if (step == 0) loss_first = loss_last;
    if (step >= args.warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  const std::string extra = std::string(", \"openblas_threads\": \"") +
                            train_step_bench::env_or("OPENBLAS_NUM_THREADS", "default") +
                            "\", \"torch_threads\": " + std::to_string(torch::get_num_threads());
  const double cpu_ms = (train_step_bench::process_cpu_seconds() - cpu0) * 1e3 / args.steps;
  train_step_bench::print_result("libtorch", args, ms, cpu_ms, loss_first, loss_last, extra);
}
