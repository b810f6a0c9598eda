// Determinism (docs/design.md, "Determinism"): the same seed and thread count give bit-identical
// runs; the kernels listed there as independent of the thread count give the same bits with
// 1, 2 and 3 threads. (The reductions listed as depending on it are not pinned: their results
// may agree by chance.)
#include <omp.h>

#include <cstring>
#include <functional>

#include "test_util.h"
#include "train/train_test_util.h"
#include "train/trainer.h"

using namespace tg;
using namespace tg::test;

namespace {

// Sets the OpenMP thread count for a scope.
class Threads {
 public:
  explicit Threads(int n) : saved_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~Threads() { omp_set_num_threads(saved_); }
  Threads(const Threads&) = delete;
  Threads& operator=(const Threads&) = delete;

 private:
  int saved_;
};

// The bytes of every tensor fn returns, run on `threads` threads.
std::vector<std::string> bytes_with_threads(int threads, const std::function<TensorList()>& fn) {
  Threads scope(threads);
  std::vector<std::string> out;
  for (const Tensor& t : fn()) {
    const Tensor c = contiguous(t);
    out.emplace_back(static_cast<const char*>(c.raw_data()), static_cast<size_t>(c.numel()) * element_size(c.dtype()));
  }
  return out;
}

void require_thread_count_independent(const char* what, const std::function<TensorList()>& fn) {
  const auto one = bytes_with_threads(1, fn);
  REQUIRE(!one.empty());
  for (int threads : {2, 3}) {
    const auto other = bytes_with_threads(threads, fn);
    REQUIRE(other.size() == one.size());
    for (size_t i = 0; i < one.size(); ++i) {
      INFO(std::string(what), ": output ", i, " with ", threads, " threads");
      CHECK(other[i] == one[i]);
    }
  }
}

struct Run {
  std::vector<double> losses, grad_norms;
  std::vector<std::string> weights;  // every parameter's bytes, in state_dict order
};

Run train_tiny(int threads) {
  Threads scope(threads);
  TempDir dir("determinism");
  train::TrainConfig c = tiny_config("reverse", dir.path());
  c.steps = 12, c.dropout = 0.1, c.clip = 1;
  train::Trainer trainer(c, {.console = nullptr, .write_files = false});
  Run r;
  trainer.on_step = [&](const train::StepMetrics& m) {
    r.losses.push_back(m.loss);
    r.grad_norms.push_back(m.grad_norm);
  };
  trainer.fit();
  for (const auto& [name, t] : trainer.model().named_parameters()) {
    const std::vector<float> v = t.to_vector<float>();
    r.weights.emplace_back(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  return r;
}

}  // namespace

TEST_CASE("determinism: the same seed and thread count train bit for bit the same") {
  for (int threads : {1, 2}) {
    INFO(threads, " thread(s)");
    const Run a = train_tiny(threads), b = train_tiny(threads);
    REQUIRE(a.losses.size() == 12);
    CHECK(a.losses == b.losses);
    CHECK(a.grad_norms == b.grad_norms);
    CHECK(a.weights == b.weights);
  }
}

TEST_CASE("determinism: the kernels documented as independent of the thread count are") {
  // Sizes above kParallelGrain (2^15 elements), so that every kernel runs its parallel path.
  const Tensor x = randn({300, 160}, kF32, kCPU), w = randn({160}, kF32, kCPU), b = randn({160}, kF32, kCPU);
  const Tensor grad = randn({300, 160}, kF32, kCPU);
  require_thread_count_independent("elementwise, broadcast and strided", [&] {
    return TensorList{add(mul(transpose(x, 0, 1), unsqueeze(w, 1)), 1.0), tanh(x), gelu(x)};
  });
  require_thread_count_independent("sums over leading dims (bias gradients) and over the last dim",
                                   [&] { return TensorList{sum(x, {0}), sum(x, {1}), mean(x, {0})}; });
  require_thread_count_independent("softmax, log_softmax and max",
                                   [&] { return TensorList{softmax(x, -1), log_softmax(x, 0), max(x, 1)}; });
  require_thread_count_independent("layer_norm forward and backward (weight and bias gradients)", [&] {
    Tensor xg = x.detach().requires_grad_(), wg = w.detach().requires_grad_(), bg = b.detach().requires_grad_();
    Tensor y = layer_norm(xg, {160}, wg, bg);
    y.backward(grad);
    return TensorList{y, xg.grad(), wg.grad(), bg.grad()};
  });
  std::vector<int64_t> rows(600), targets(400);
  for (int64_t i = 0; i < 600; ++i) rows[i] = i * 7 % 50;
  for (int64_t i = 0; i < 400; ++i) targets[i] = i * 13 % 100;
  const Tensor table_values = randn({50, 700}, kF32, kCPU), logit_values = randn({400, 100}, kF32, kCPU);
  require_thread_count_independent("embedding backward (repeated indices) and cross_entropy", [&] {
    Tensor table = table_values.detach().requires_grad_();
    Generator gen(1);  // the same output gradient every run
    embedding(tensor_i64(rows), table).backward(randn({600, 700}, kF32, kCPU, gen));
    Tensor logits = logit_values.detach().requires_grad_();
    Tensor loss = cross_entropy(logits, tensor_i64(targets), {.reduction = Reduction::none});
    loss.backward(ones_like(loss));
    return TensorList{table.grad(), loss, logits.grad()};
  });
  require_thread_count_independent("clip_grad_norm: the norm and the scaled gradients", [&] {
    std::vector<NamedParameter> params;
    for (const Tensor& values : {x, table_values, w}) {
      Tensor p = zeros_like(values).requires_grad_();
      p.backward(values);
      params.push_back({"p", p});
    }
    const double norm = clip_grad_norm(params, 1);
    return TensorList{tensor({norm}, {1}, kF64), params[0].tensor.grad(), params[1].tensor.grad()};
  });
}
