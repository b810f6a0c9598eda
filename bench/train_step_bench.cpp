// train_step_bench: wall time of one tapegrad training step (forward + backward + AdamW +
// zero_grad, fp32) of a small post-LN Transformer encoder, the model of train_step_common.h,
// on a fixed batch of random tokens. Prints one JSON line (median and min ms/step, matmul
// GFLOP/s and % of the 2-core FMA peak, peak RSS, first and last loss, and the OpenMP parallel
// regions a step opens on more than one thread, null where the build cannot count them).
//
//   tapegrad_train_step_bench [--config toy|larger] [--threads N] [--steps N] [--warmup N]
//
// bench/libtorch/train_step_libtorch.cpp is the same model in libtorch; bench/side_by_side.sh
// runs both, on an idle machine and beside a busy loop. Its OpenMP threads wait as every
// tapegrad program's do (core/openmp_wait.cpp) unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set.
// Its products' micro-kernels are tuned as the tapegrad program's are (ops/matmul/gemm_tuning.h:
// TAPEGRAD_GEMM_TUNING; "gemm_shapes_tuned" counts the shapes timed), after each warm-up step.
#include <fmt/format.h>
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/parallel_region_count.h"
#include "bench/train_step_common.h"
#include "core/factories.h"
#include "core/rng.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/module.h"
#include "nn/positional_encoding.h"
#include "nn/transformer_encoder.h"
#include "ops/cross_entropy/cross_entropy.h"
#include "ops/matmul/gemm_tuning.h"
#include "optim/adam.h"

namespace {

using train_step_bench::Config;
using train_step_bench::random_ids;

// tokens (B,T) int64 -> logits (B,T,V)
//   x = embedding(tokens) + pos.weight[0:T]; x = encoder(x) (post-LN, no final norm); head(x)
class Model : public tg::nn::Module {
 public:
  explicit Model(const Config& c) : Module("BenchModel") {
    embedding = register_module("embedding", std::make_shared<tg::nn::Embedding>(c.vocab, c.d_model));
    pos = register_module("pos", std::make_shared<tg::nn::LearnedPositionalEncoding>(c.seq, c.d_model));
    tg::nn::EncoderLayerConfig layer{.d_model = c.d_model, .nhead = c.heads, .dim_feedforward = c.ffn,
                                     .dropout = 0.1, .norm_first = false};
    encoder = register_module("encoder", std::make_shared<tg::nn::TransformerEncoder>(layer, c.layers));
    head = register_module("head", std::make_shared<tg::nn::Linear>(c.d_model, c.vocab));
  }
  tg::Tensor forward(const tg::Tensor& tokens) const {
    return head->forward(encoder->forward(pos->forward_of_embedding(*embedding, tokens)));
  }

  std::shared_ptr<tg::nn::Embedding> embedding;
  std::shared_ptr<tg::nn::LearnedPositionalEncoding> pos;
  std::shared_ptr<tg::nn::TransformerEncoder> encoder;
  std::shared_ptr<tg::nn::Linear> head;
};

}  // namespace

int main(int argc, char** argv) {
  const train_step_bench::Args args = train_step_bench::parse_args(argc, argv, argv[0]);
  const Config& c = args.config;
  omp_set_num_threads(args.threads);
  tg::manual_seed(0);
  if (const std::string warning = tg::gemm_tuning_start_from_environment(); !warning.empty())
    fmt::print(stderr, "{}\n", warning);
  int shapes_tuned = 0;

  Model model(c);
  model.train();
  std::vector<tg::NamedParameter> params;
  for (const auto& [name, tensor] : model.named_parameters()) params.push_back({name, tensor});
  tg::AdamW optimizer(params, {.lr = 1e-3, .weight_decay = 0.01});
  const tg::Tensor tokens = tg::tensor_i64(random_ids(c.batch * c.seq, c.vocab, 1), {c.batch, c.seq});
  const tg::Tensor targets = tg::tensor_i64(random_ids(c.batch * c.seq, c.vocab, 2), {c.batch, c.seq});

  std::vector<double> ms;
  double loss_first = 0, loss_last = 0;
  double cpu0 = 0;
  std::optional<int64_t> regions0;
  for (int step = 0; step < args.warmup + args.steps; ++step) {
    if (step == args.warmup) {
      cpu0 = train_step_bench::process_cpu_seconds();
      regions0 = tg::bench::parallel_regions();
    }
    const auto t0 = std::chrono::steady_clock::now();
    tg::Tensor loss = tg::cross_entropy(model.forward(tokens), targets);
    loss.backward();
    optimizer.step();
    optimizer.zero_grad();
    const auto t1 = std::chrono::steady_clock::now();
    loss_last = loss.item();  // after the clock: item() is not part of libtorch's step either
    if (step == 0) loss_first = loss_last;
    if (step >= args.warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (step < args.warmup) shapes_tuned += tg::gemm_tune_pending().shapes;
  }
  const double cpu_ms = (train_step_bench::process_cpu_seconds() - cpu0) * 1e3 / args.steps;
  const std::optional<int64_t> regions1 = tg::bench::parallel_regions();
  const std::string regions_per_step =
      regions1 ? fmt::format("{:.1f}", static_cast<double>(*regions1 - *regions0) / args.steps) : "null";
  train_step_bench::print_result("tapegrad", args, ms, cpu_ms, loss_first, loss_last,
                                 fmt::format(", \"parallel_regions_per_step\": {}, \"gemm_shapes_tuned\": {}",
                                             regions_per_step, shapes_tuned));
}
