// gpu_bench: the training step of a small Transformer on the GPU (ms/step, tokens/s), and the
// forward+backward time of each op at that model's shapes. bench/pytorch_train_step.py runs
// the same model in PyTorch eager and prints the two side by side.
//
//   tapegrad_gpu_bench [--device cuda|cpu] [--steps N] [--config toy|large|all] [--no-ops]
//
// The model (both sides): token embedding + learned positions, post-LN encoder layers
// (PyTorch's nn.TransformerEncoderLayer: relu, dropout 0.1, separate q/k/v here, packed there),
// a linear head to the vocabulary, mean cross-entropy against random targets, AdamW.
// One step = forward + backward + AdamW step + zero_grad.
//
// Timing: the device is synchronised before the clock starts and before it stops, so each
// number covers the GPU work, not just the launches. Warm-up steps first (cuBLAS handles,
// caching allocator), then the median of the timed steps.
//
// Output: a readable table, and for each measurement one JSON line starting with '{' (read by
// pytorch_train_step.py --tapegrad FILE).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/cuda/cuda_runtime.h"
#include "tapegrad.h"

namespace {

using namespace tg;

struct BenchConfig {
  const char* name;
  int64_t vocab, d_model, heads, ffn, layers, seq, batch;
};

constexpr BenchConfig kConfigs[] = {
    {"toy", 64, 128, 4, 512, 2, 64, 32},
    {"large", 64, 256, 8, 1024, 4, 128, 16},
};

class BenchModel : public nn::Module {
 public:
  explicit BenchModel(const BenchConfig& c) : Module("BenchModel") {
    embedding = register_module("embedding", std::make_shared<nn::Embedding>(c.vocab, c.d_model));
    positions = register_module("positions", std::make_shared<nn::LearnedPositionalEncoding>(c.seq, c.d_model));
    encoder = register_module("encoder", std::make_shared<nn::TransformerEncoder>(
                                             nn::EncoderLayerConfig{.d_model = c.d_model, .nhead = c.heads,
                                                                    .dim_feedforward = c.ffn, .dropout = 0.1},
                                             c.layers));
    head = register_module("head", std::make_shared<nn::Linear>(c.d_model, c.vocab));
  }
  Tensor forward(const Tensor& ids) const {  // ids (B,T) -> logits (B,T,V)
    return head->forward(encoder->forward(positions->forward(embedding->forward(ids))));
  }

  std::shared_ptr<nn::Embedding> embedding;
  std::shared_ptr<nn::LearnedPositionalEncoding> positions;
  std::shared_ptr<nn::TransformerEncoder> encoder;
  std::shared_ptr<nn::Linear> head;
};

void sync(Device device) {
  if (device.is_cuda()) cuda_synchronize();
}

// Median milliseconds of `reps` runs of fn after `warmup` untimed ones, synchronised around each.
double median_ms(Device device, int warmup, int reps, const std::function<void()>& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    sync(device);
    const auto start = std::chrono::steady_clock::now();
    fn();
    sync(device);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

Tensor random_ids(const Shape& shape, int64_t vocab, Device device) {
  Tensor u = rand(shape, kF64);  // [0, 1) on the CPU, then ids in [0, vocab)
  std::vector<int64_t> ids;
  for (double v : u.to_vector<double>()) ids.push_back(std::min<int64_t>(static_cast<int64_t>(v * vocab), vocab - 1));
  return to_device_copy(tensor_i64(ids, shape), device);
}

void bench_train_step(const BenchConfig& c, Device device, int steps) {
  manual_seed(0);
  BenchModel model(c);
  model.to_(device);
  model.train();
  std::vector<NamedParameter> params;
  for (auto& [name, t] : model.named_parameters()) params.push_back({name, t});
  AdamW opt(params, AdamWOptions{.lr = 1e-3});
  const Tensor ids = random_ids({c.batch, c.seq}, c.vocab, device);
  const Tensor targets = random_ids({c.batch, c.seq}, c.vocab, device);
  double first_loss = 0, last_loss = 0;
  auto step = [&] {
    Tensor loss = cross_entropy(model.forward(ids), targets);
    loss.backward();
    opt.step();
    opt.zero_grad();
    last_loss = loss.item();
  };
  step();
  first_loss = last_loss;
  const double ms = median_ms(device, 2, steps, step);
  const double tokens_per_s = static_cast<double>(c.batch * c.seq) / (ms / 1e3);
  int64_t numel = 0;
  for (const NamedParameter& p : params) numel += p.tensor.numel();
  fmt::print("train {:<6} {:>10.3f} ms/step {:>12.0f} tokens/s   (loss {:.4f} -> {:.4f}, {} parameters)\n", c.name, ms,
             tokens_per_s, first_loss, last_loss, numel);
  fmt::print("{{\"kind\": \"train\", \"config\": \"{}\", \"ms_per_step\": {:.4f}, \"tokens_per_s\": {:.1f}}}\n", c.name,
             ms, tokens_per_s);
}

// Forward + backward of one op on inputs made by `make`, from a ones gradient.
void bench_op(const BenchConfig& c, Device device, const std::string& op, const std::string& shape,
              const std::function<std::vector<Tensor>()>& make,
              const std::function<Tensor(const std::vector<Tensor>&)>& fn) {
  const std::vector<Tensor> in = make();
  const Tensor out0 = fn(in);
  const Tensor grad = ones(out0.shape(), out0.dtype(), device);
  const double ms = median_ms(device, 3, 21, [&] {
    for (Tensor t : in) t.zero_grad();  // a handle: clears the input's gradient
    fn(in).backward(grad);
  });
  fmt::print("  op {:<6} {:<14} {:<22} {:>9.4f} ms fwd+bwd\n", c.name, op, shape, ms);
  fmt::print("{{\"kind\": \"op\", \"config\": \"{}\", \"op\": \"{}\", \"shape\": \"{}\", \"ms\": {:.5f}}}\n",
             c.name, op, shape, ms);
}

void bench_ops(const BenchConfig& c, Device device) {
  const int64_t B = c.batch, T = c.seq, E = c.d_model, NH = c.heads, hs = E / NH, F = c.ffn, V = c.vocab;
  auto leaf = [device](const Shape& s) { return to_device_copy(randn(s), device).requires_grad_(); };
  auto sh = [](std::initializer_list<int64_t> s) { return shape_str(Shape(s)); };
  bench_op(c, device, "matmul", sh({B * T, E}) + "@" + sh({E, F}),
           [&] { return std::vector{leaf({B * T, E}), leaf({E, F})}; },
           [](const std::vector<Tensor>& x) { return matmul(x[0], x[1]); });
  bench_op(c, device, "softmax", sh({B, NH, T, T}), [&] { return std::vector{leaf({B, NH, T, T})}; },
           [](const std::vector<Tensor>& x) { return softmax(x[0], -1); });
  bench_op(c, device, "attention", sh({B, NH, T, hs}),
           [&] { return std::vector{leaf({B, NH, T, hs}), leaf({B, NH, T, hs}), leaf({B, NH, T, hs})}; },
           [](const std::vector<Tensor>& x) { return scaled_dot_product_attention(x[0], x[1], x[2]).output; });
  bench_op(c, device, "layer_norm", sh({B, T, E}), [&] { return std::vector{leaf({B, T, E}), leaf({E}), leaf({E})}; },
           [E](const std::vector<Tensor>& x) { return layer_norm(x[0], {E}, x[1], x[2]); });
  bench_op(c, device, "relu", sh({B, T, F}), [&] { return std::vector{leaf({B, T, F})}; },
           [](const std::vector<Tensor>& x) { return relu(x[0]); });
  bench_op(c, device, "gelu", sh({B, T, F}), [&] { return std::vector{leaf({B, T, F})}; },
           [](const std::vector<Tensor>& x) { return gelu(x[0]); });
  bench_op(c, device, "dropout", sh({B, T, F}), [&] { return std::vector{leaf({B, T, F})}; },
           [](const std::vector<Tensor>& x) { return dropout(x[0], 0.1, true); });
  bench_op(c, device, "add", sh({B, T, E}), [&] { return std::vector{leaf({B, T, E}), leaf({B, T, E})}; },
           [](const std::vector<Tensor>& x) { return x[0] + x[1]; });
  const Tensor ids = random_ids({B, T}, V, device);
  bench_op(c, device, "embedding", sh({B, T}) + "x" + sh({V, E}), [&] { return std::vector{leaf({V, E})}; },
           [ids](const std::vector<Tensor>& x) { return embedding(ids, x[0]); });
  bench_op(c, device, "cross_entropy", sh({B, T, V}), [&] { return std::vector{leaf({B, T, V})}; },
           [ids](const std::vector<Tensor>& x) { return cross_entropy(x[0], ids); });
}

int usage(const std::string& why) {
  fmt::print(stderr, "gpu_bench: {}\nusage: tapegrad_gpu_bench [--device cuda|cpu] [--steps N] "
                     "[--config toy|large|all] [--no-ops]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device_name = "cuda", which = "all";
  int steps = 20;
  bool ops = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--device" && has_value) device_name = argv[++i];
    else if (a == "--steps" && has_value) steps = std::max(1, std::stoi(argv[++i]));
    else if (a == "--config" && has_value) which = argv[++i];
    else if (a == "--no-ops") ops = false;
    else return usage("unknown argument " + a);
  }
  try {
    const Device device = train::parse_device(device_name);
    if (device.is_cuda() && cuda_device_count() == 0) {
      fmt::print(stderr, "gpu_bench: no GPU found (cuda_device_count() == 0)\n");
      return 1;
    }
    fmt::print("tapegrad gpu_bench on {}: {} timed steps after 3 warm-up, median\n", device.str(), steps);
    for (const BenchConfig& c : kConfigs) {
      if (which != "all" && which != c.name) continue;
      fmt::print("config {}: vocab {}, d_model {}, heads {}, ffn {}, layers {}, seq {}, batch {}\n", c.name, c.vocab,
                 c.d_model, c.heads, c.ffn, c.layers, c.seq, c.batch);
      bench_train_step(c, device, steps);
      if (ops) bench_ops(c, device);
    }
  } catch (const Error& e) {
    fmt::print(stderr, "gpu_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
