// The OpenMP parallel regions a kernel opens (bench/parallel_region_count.h): each region wakes
// the team's other threads, so issue 33 asks for few per training step. Counted where the build
// can count them (libgomp linked statically); elsewhere these cases are reported as skipped.
#include <omp.h>

#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "bench/parallel_region_count.h"
#include "test_util.h"

namespace tg {
namespace {

const bool counting = bench::parallel_regions().has_value();

// The regions fn opens on a team of two threads (the default team size put back afterwards).
int64_t regions_opened_by(const std::function<void()>& fn) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(2);
  const int64_t before = *bench::parallel_regions();
  fn();
  const int64_t opened = *bench::parallel_regions() - before;
  omp_set_num_threads(threads);
  return opened;
}

// The same computation on one thread: what the two-thread results must equal bit for bit.
void on_one_thread(const std::function<void()>& fn) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  fn();
  omp_set_num_threads(threads);
}

void require_same_bits(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  REQUIRE(a.dtype() == b.dtype());
  REQUIRE(a.is_contiguous());
  REQUIRE(b.is_contiguous());
  CHECK(std::memcmp(a.raw_data(), b.raw_data(), static_cast<size_t>(a.numel()) * element_size(a.dtype())) == 0);
}

TEST_CASE("parallel regions: AdamW updates every parameter in one region" * doctest::skip(!counting)) {
  // float parameters above and below the grain and a double one, in one group
  auto make_params = [] {
    manual_seed(3);
    return std::vector<NamedParameter>{{"big", randn({300, 400}).requires_grad_()},
                                       {"small", randn({64}).requires_grad_()},
                                       {"big2", randn({70000}).requires_grad_()},
                                       {"wide", randn({5000}, kF64).requires_grad_()}};
  };
  auto train = [](std::vector<NamedParameter>& params, int steps, const std::function<void(AdamW&)>& step) {
    AdamW optimizer(params, {.lr = 1e-2, .weight_decay = 0.1});
    for (int s = 0; s < steps; ++s) {
      for (auto& p : params) {
        Tensor t = p.tensor;  // a handle: zero_grad() changes the shared tensor
        t.zero_grad();
        t.backward(full_like(t, 0.5 - 0.25 * s));
      }
      step(optimizer);
    }
  };
  std::vector<NamedParameter> two = make_params(), one = make_params();
  int64_t regions = 0, step = 0;
  train(two, 3, [&](AdamW& optimizer) {
    const int64_t opened = regions_opened_by([&] { optimizer.step(); });
    if (step++ > 0) regions += opened;  // the first step also fills the new state buffers with zeros
  });
  CHECK(regions == 2);
  on_one_thread([&] { train(one, 3, [](AdamW& optimizer) { optimizer.step(); }); });
  for (size_t i = 0; i < one.size(); ++i) require_same_bits(two[i].tensor, one[i].tensor);
}

TEST_CASE("parallel regions: clip_grad_norm measures every gradient in one region and scales them in one" *
          doctest::skip(!counting)) {
  // float gradients above and below the grain and a double one
  auto make_params = [] {
    manual_seed(5);
    std::vector<NamedParameter> params{{"big", randn({300, 400}).requires_grad_()},
                                       {"small", randn({64}).requires_grad_()},
                                       {"big2", randn({70000}).requires_grad_()},
                                       {"wide", randn({5000}, kF64).requires_grad_()}};
    for (auto& p : params) {
      Tensor t = p.tensor;
      t.backward(randn(t.shape(), t.dtype()));
    }
    return params;
  };
  std::vector<NamedParameter> two = make_params(), one = make_params();
  double two_norm = 0, one_norm = 0;
  CHECK(regions_opened_by([&] { two_norm = clip_grad_norm(two, 1); }) == 2);
  on_one_thread([&] { one_norm = clip_grad_norm(one, 1); });
  CHECK(std::memcmp(&two_norm, &one_norm, sizeof(double)) == 0);  // the same sum order at every thread count
  for (size_t i = 0; i < one.size(); ++i) require_same_bits(two[i].tensor.grad(), one[i].tensor.grad());
}

TEST_CASE("parallel regions: linear's weight and bias gradients share the product's region" *
          doctest::skip(!counting)) {
  // x (512, 256), weight (256, 256), bias (256): the bias's column sums run inside the region of
  // dweight (256, 256) = grad^T (256, 512) @ x (512, 256). The weight is large enough that a copy of
  // its gradient would open a region too: backward keeps the fresh gradient as weight.grad().
  manual_seed(5);
  const Tensor x = randn({512, 256});
  const Tensor grad = randn({512, 256});
  auto gradients = [&](const Tensor& weight, const Tensor& bias) {
    linear(x, weight, bias).backward(grad);
    return std::pair{weight.grad(), bias.grad()};
  };
  auto parameters = [] {
    manual_seed(6);
    Tensor weight = randn({256, 256}).requires_grad_(), bias = randn({256}).requires_grad_();
    return std::pair{weight, bias};
  };
  const std::pair<Tensor, Tensor> leaves2 = parameters(), leaves1 = parameters();
  std::pair<Tensor, Tensor> two, one;
  CHECK(regions_opened_by([&] { two = gradients(leaves2.first, leaves2.second); }) == 2);  // forward, backward
  on_one_thread([&] { one = gradients(leaves1.first, leaves1.second); });
  test::require_close(two.first, one.first, 1e-4, 1e-5);  // the product's split depends on the thread count
  require_same_bits(two.second, one.second);                // each column summed in row order by one thread
  test::require_close(two.second, sum(grad, {0}), 1e-4, 1e-5);
}

TEST_CASE("parallel regions: linear's dx, dweight and dbias share one region" * doctest::skip(!counting)) {
  // x (2, 256, 128) requires a gradient too: dx (512, 128) = grad @ weight and dweight (256, 128) =
  // grad^T @ x (a depth split) run as one team, the bias's column sums after them. Each has the
  // bits of its product computed alone, by matmul, on the same two threads.
  manual_seed(12);
  const Tensor x = randn({2, 256, 128}).requires_grad_(), grad = randn({2, 256, 256});
  const Tensor weight = randn({256, 128}).requires_grad_(), bias = randn({256}).requires_grad_();
  CHECK(regions_opened_by([&] { linear(x, weight, bias).backward(grad); }) == 2);  // forward, backward
  Tensor dx, dweight;
  regions_opened_by([&] {
    dx = matmul(grad, weight);
    dweight = matmul(transpose(reshape(grad, {512, 256}), 0, 1), reshape(x, {512, 128}));
  });
  require_same_bits(x.grad(), dx);
  require_same_bits(weight.grad(), dweight);
  test::require_close(bias.grad(), sum(grad, {0, 1}), 1e-4, 1e-5);
}

TEST_CASE("parallel regions: matmul's da and db for a shared weight share one region" * doctest::skip(!counting)) {
  // x (2, 256, 128) @ w^T, w (256, 128) as the composed Linear multiplies: da (512, 128) = grad @ w
  // and db (128, 256) = x^T @ grad run as one team, each with the bits of its product computed
  // alone, by matmul, on the same two threads.
  manual_seed(14);
  const Tensor x = randn({2, 256, 128}).requires_grad_(), w = randn({256, 128}).requires_grad_();
  const Tensor grad = randn({2, 256, 256});
  CHECK(regions_opened_by([&] { matmul(x, transpose(w, 0, 1)).backward(grad); }) == 2);  // forward, backward
  Tensor dx, dwt;
  regions_opened_by([&] {
    dx = matmul(grad, w);
    dwt = matmul(transpose(reshape(x, {512, 128}), 0, 1), reshape(grad, {512, 256}));  // (128, 256) = dw^T
  });
  require_same_bits(x.grad(), dx);
  require_same_bits(w.grad(), contiguous(transpose(dwt, 0, 1)));
}

TEST_CASE("parallel regions: the q, k and v projections of one input share one region" *
          doctest::skip(!counting)) {
  // Linear::forward_together (self-attention's projections): three products of x (512, 128), one
  // team of threads; each layer's forward alone opens one region per product.
  nn::Linear q(128, 128), k(128, 128), v(128, 128);
  const std::vector<const nn::Linear*> layers{&q, &k, &v};
  manual_seed(13);
  const Tensor x = randn({4, 128, 128});
  TensorList together;
  CHECK(regions_opened_by([&] { together = nn::Linear::forward_together(layers, x); }) == 1);
  CHECK(regions_opened_by([&] {
          for (const nn::Linear* layer : layers) layer->forward(x);
        }) == 3);
}

TEST_CASE("parallel regions: self-attention's q, k and v products and fused attention share one region forward" *
          doctest::skip(!counting)) {
  // MultiHeadAttention(128, 4, dropout 0.1) on x (4, 64, 128), causal, in training: the kernel runs
  // after the projections' products in their region, where the projections and fused_attention
  // called one after the other open four. The same bits forward and backward, from generators in
  // one state.
  nn::MultiHeadAttention attention(128, 4, 0.1);
  manual_seed(23);
  const Tensor x_data = randn({4, 64, 128});
  const Tensor grad = randn({4, 64, 128});
  const Tensor x1 = x_data.detach().requires_grad_(), x2 = x_data.detach().requires_grad_();
  Tensor merged;
  manual_seed(24);
  CHECK(regions_opened_by([&] {
          merged = attention.forward_to_out_proj(x1, x1, x1, {.is_causal = true}).x;
        }) == 1);
  Tensor two;
  manual_seed(24);
  CHECK(regions_opened_by([&] {
          auto heads = [](const Tensor& y) { return transpose(reshape(y, {4, 64, 4, 32}), 1, 2); };
          const nn::Linear* const layers[] = {attention.q_proj.get(), attention.k_proj.get(), attention.v_proj.get()};
          TensorList qkv;
          for (const nn::Linear* layer : layers) qkv.push_back(heads(linear(x2, layer->weight, layer->bias)));
          AttentionOptions options;
          options.is_causal = true, options.dropout_p = 0.1, options.training = true;
          const Tensor out = fused_attention(qkv[0], qkv[1], qkv[2], options);
          two = reshape(transpose(out, 1, 2), {4, 64, 128});
        }) == 4);
  require_same_bits(merged, two);
  merged.backward(grad);
  TensorList first{clone(x1.grad())};
  for (const Tensor& p : attention.parameters()) first.push_back(p.grad().defined() ? clone(p.grad()) : Tensor());
  attention.zero_grad();
  two.backward(grad);
  require_same_bits(x2.grad(), first[0]);
  const TensorList parameters = attention.parameters();
  int compared = 0;  // the q, k and v projections' weights and biases (out_proj is not run)
  for (size_t i = 0; i < parameters.size(); ++i)
    if (first[i + 1].defined()) require_same_bits(parameters[i].grad(), first[i + 1]), ++compared;
  CHECK(compared == 6);
}

TEST_CASE("parallel regions: a post-LN residual connection is one region forward and one backward" *
          doctest::skip(!counting)) {
  // layer_norm(residual + dropout(x)), (512, 128): dropout_add_layer_norm draws, sums and normalises
  // in one region and makes the sum again, normalises back and drops in one, where dropout_add
  // and layer_norm open two each way. The same bits, from generators in one state.
  auto leaves = [] {
    manual_seed(15);
    return TensorList{randn({512, 128}).requires_grad_(), randn({512, 128}).requires_grad_(),
                      randn({128}).requires_grad_(), randn({128}).requires_grad_()};
  };
  manual_seed(16);
  const Tensor grad = randn({512, 128});
  const TensorList fused = leaves(), two = leaves();
  Generator fused_gen(3), two_gen(3);
  Tensor y_fused, y_two;
  CHECK(regions_opened_by([&] {
          y_fused = dropout_add_layer_norm(fused[0], fused[1], 0.1, true, {128}, fused[2], fused[3], 1e-5, fused_gen);
        }) == 1);
  CHECK(regions_opened_by([&] { y_fused.backward(grad); }) == 1);
  CHECK(regions_opened_by([&] {
          y_two = layer_norm(dropout_add(two[0], two[1], 0.1, true, two_gen), {128}, two[2], two[3], 1e-5);
        }) == 2);
  CHECK(regions_opened_by([&] { y_two.backward(grad); }) >= 2);  // with leaves, a copy of the residual's gradient too
  require_same_bits(y_fused, y_two);
  for (size_t i = 0; i < fused.size(); ++i) require_same_bits(fused[i].grad(), two[i].grad());
}

TEST_CASE("parallel regions: a feed-forward's first layer, relu and dropout are one region forward and one "
          "backward" * doctest::skip(!counting)) {
  // dropout(relu(linear(x))), x (512, 64) -> 256: linear_relu_dropout draws the mask in the
  // product's region, and makes the masked gradient in the region of the products and bias sums
  // of backward, where linear and relu_dropout open two each way. The same bits, from generators
  // in one state. x's gradient is wanted too (a layer's input).
  auto leaves = [] {
    manual_seed(17);
    return TensorList{randn({512, 64}).requires_grad_(), randn({256, 64}).requires_grad_(),
                      randn({256}).requires_grad_()};
  };
  manual_seed(18);
  const Tensor grad = randn({512, 256});
  const TensorList fused = leaves(), two = leaves();
  Generator fused_gen(3), two_gen(3);
  Tensor y_fused, y_two;
  CHECK(regions_opened_by([&] {
          y_fused = linear_relu_dropout(fused[0], fused[1], fused[2], 0.1, true, fused_gen);
        }) == 1);
  CHECK(regions_opened_by([&] { y_fused.backward(grad); }) == 1);
  CHECK(regions_opened_by([&] { y_two = relu_dropout(linear(two[0], two[1], two[2]), 0.1, true, two_gen); }) == 2);
  CHECK(regions_opened_by([&] { y_two.backward(grad); }) == 2);
  require_same_bits(y_fused, y_two);
  for (size_t i = 0; i < fused.size(); ++i) require_same_bits(fused[i].grad(), two[i].grad());
}

TEST_CASE("parallel regions: a post-LN block's last layer, residual connection and norm are one region forward "
          "and one backward" * doctest::skip(!counting)) {
  // layer_norm(residual + dropout(linear(x))), x (512, 256) -> 128: linear_dropout_add_layer_norm
  // draws, sums and normalises in the product's region, and runs layer_norm's backward rows
  // (making the linear layer's gradient) in the region of the products and bias sums of backward,
  // where linear and dropout_add_layer_norm open two each way. The same bits, from generators in
  // one state. x's gradient is wanted too (a layer's input).
  auto leaves = [] {
    manual_seed(21);
    return TensorList{randn({512, 256}).requires_grad_(), randn({128, 256}).requires_grad_(),
                      randn({128}).requires_grad_(),      randn({512, 128}).requires_grad_(),
                      randn({128}).requires_grad_(),      randn({128}).requires_grad_()};
  };
  manual_seed(22);
  const Tensor grad = randn({512, 128});
  const TensorList fused = leaves(), two = leaves();
  const TensorList& f = fused;
  Generator fused_gen(3), two_gen(3);
  Tensor y_fused, y_two;
  CHECK(regions_opened_by([&] {
          y_fused = linear_dropout_add_layer_norm(f[0], f[1], f[2], f[3], 0.1, true, {128}, f[4], f[5], 1e-5,
                                                  fused_gen);
        }) == 1);
  CHECK(regions_opened_by([&] { y_fused.backward(grad); }) == 1);
  CHECK(regions_opened_by([&] {
          y_two = dropout_add_layer_norm(two[3], linear(two[0], two[1], two[2]), 0.1, true, {128}, two[4], two[5],
                                         1e-5, two_gen);
        }) == 2);
  CHECK(regions_opened_by([&] { y_two.backward(grad); }) == 2);
  require_same_bits(y_fused, y_two);
  for (size_t i = 0; i < fused.size(); ++i) require_same_bits(fused[i].grad(), two[i].grad());
}

TEST_CASE("parallel regions: a pre-LN block's last layer and residual connection are one region forward and one "
          "backward" * doctest::skip(!counting)) {
  // residual + dropout(linear(x)), x (512, 256) -> 128: linear_dropout_add draws the mask and adds
  // the residual in the product's region, and makes the masked gradient in the region of the
  // products and bias sums of backward, where linear and dropout_add open two each way. Without a
  // draw (p = 0) the sum alone runs in the product's region. The same bits, from generators in one
  // state.
  for (double p : {0.1, 0.0}) {
    CAPTURE(p);
    auto leaves = [] {
      manual_seed(25);
      return TensorList{randn({512, 256}).requires_grad_(), randn({128, 256}).requires_grad_(),
                        randn({128}).requires_grad_(), randn({512, 128})};  // (a leaf residual's .grad is a copy)
    };
    manual_seed(26);
    const Tensor grad = randn({512, 128});
    const TensorList fused = leaves(), two = leaves();
    Generator fused_gen(3), two_gen(3);
    Tensor y_fused, y_two;
    CHECK(regions_opened_by([&] {
            y_fused = linear_dropout_add(fused[0], fused[1], fused[2], fused[3], p, true, fused_gen);
          }) == 1);
    CHECK(regions_opened_by([&] { y_fused.backward(grad); }) == 1);
    CHECK(regions_opened_by([&] {
            y_two = dropout_add(two[3], linear(two[0], two[1], two[2]), p, true, two_gen);
          }) == 2);
    CHECK(regions_opened_by([&] { y_two.backward(grad); }) == (p > 0 ? 2 : 1));
    require_same_bits(y_fused, y_two);
    for (size_t i = 0; i < 3; ++i) require_same_bits(fused[i].grad(), two[i].grad());
  }
}

TEST_CASE("parallel regions: token and position embeddings are one region forward and one backward" *
          doctest::skip(!counting)) {
  // embedding(indices) + positions[0:T], indices (32, 64) of 64 x 128: embedding_add_positions
  // looks up and adds in one region, and scatters dweight and sums dpositions over the batch in
  // one, where embedding and add open one each way. The same bits.
  auto leaves = [] {
    manual_seed(19);
    return TensorList{randn({64, 128}).requires_grad_(), randn({64, 128}).requires_grad_()};
  };
  std::vector<int64_t> ids(32 * 64);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 37 + i / 64) % 64);
  const Tensor indices = tensor_i64(ids, {32, 64});
  manual_seed(20);
  const Tensor grad = randn({32, 64, 128});
  const TensorList fused = leaves(), two = leaves();
  Tensor y_fused, y_two;
  CHECK(regions_opened_by([&] { y_fused = embedding_add_positions(indices, fused[0], fused[1]); }) == 1);
  CHECK(regions_opened_by([&] { y_fused.backward(grad); }) == 1);
  CHECK(regions_opened_by([&] { y_two = add(embedding(indices, two[0]), slice(two[1], 0, 0, 64)); }) == 2);
  CHECK(regions_opened_by([&] { y_two.backward(grad); }) == 2);
  require_same_bits(y_fused, y_two);
  for (size_t i = 0; i < fused.size(); ++i) require_same_bits(fused[i].grad(), two[i].grad());
}

TEST_CASE("parallel regions: a product split over its depth adds the parts in the same region" *
          doctest::skip(!counting)) {
  // (128, 2048) @ (2048, 128), the toy step's dweight shape: split over k, and its 128 x 128 partial
  // sums large enough that they used to open a region of their own
  manual_seed(7);
  const Tensor a = randn({128, 2048}), b = randn({2048, 128});
  Tensor two, one;
  CHECK(regions_opened_by([&] { two = matmul(a, b); }) == 1);
  on_one_thread([&] { one = matmul(a, b); });
  test::require_close(two, one, 1e-3, 1e-4);
}

TEST_CASE("parallel regions: linear's and layer_norm's backward add x's gradient into the one gathered" *
          doctest::skip(!counting)) {
  // h (512, 256) = linear(x, w0) feeds three layers: layer_norm, then linear w1, then w2. Backward
  // runs w2's entry first (h's gradient, fresh: its own product), then w1's and layer_norm's, each
  // adding its gradient for h into the one gathered in its own region, not in a sum of its own:
  // w2 dx and dw, w1 dx (+=) and dw (each pair in one region), layer_norm dx (+=), w0 dw: 4
  // regions, where separate sums made 6 (and separate products 8).
  // The bits are those of the separate sums: a backward run entry by entry (BackwardStepper,
  // which shows every gradient and so sums them apart) gives the same w0.grad().
  auto make = [] {
    manual_seed(8);
    const Tensor x = randn({512, 256});
    std::vector<Tensor> w{randn({256, 256}).requires_grad_(), randn({256, 256}).requires_grad_(),
                          randn({256, 256}).requires_grad_()};
    const Tensor h = linear(x, w[0]);
    const TensorList outputs{layer_norm(h, {256}), linear(h, w[1]), linear(h, w[2])};
    return std::pair{w, outputs};
  };
  manual_seed(9);
  const TensorList seeds{randn({512, 256}), randn({512, 256}), randn({512, 256})};
  auto [w_run, outputs_run] = make();
  CHECK(regions_opened_by([&] { backward(outputs_run, seeds); }) == 4);
  auto [w_step, outputs_step] = make();
  int64_t stepped_regions = regions_opened_by([&] {
    BackwardStepper step(outputs_step, seeds);
    while (!step.done()) step.step();
  });
  CHECK(stepped_regions > 4);
  for (size_t i = 0; i < w_run.size(); ++i) require_same_bits(w_run[i].grad(), w_step[i].grad());
}

TEST_CASE("parallel regions: matmul's backward adds a's gradient into the one gathered" *
          doctest::skip(!counting)) {
  // h (4, 128, 256) = x @ w0 feeds h @ w1 and h @ w2 (w (256, 256) broadcast over the batch):
  // w2's da and db, w1's da (+=) and db (each pair in one region), w0's db: 3 regions, where
  // separate products made 5 and a separate sum 6. The same bits as a backward run entry by entry.
  auto make = [] {
    manual_seed(10);
    const Tensor x = randn({4, 128, 256});
    std::vector<Tensor> w{randn({256, 256}).requires_grad_(), randn({256, 256}).requires_grad_(),
                          randn({256, 256}).requires_grad_()};
    const Tensor h = matmul(x, w[0]);
    const TensorList outputs{matmul(h, w[1]), matmul(h, w[2])};
    return std::pair{w, outputs};
  };
  manual_seed(11);
  const TensorList seeds{randn({4, 128, 256}), randn({4, 128, 256})};
  auto [w_run, outputs_run] = make();
  CHECK(regions_opened_by([&] { backward(outputs_run, seeds); }) == 3);
  auto [w_step, outputs_step] = make();
  regions_opened_by([&] {  // on the same two threads, so that the products split the same way
    BackwardStepper step(outputs_step, seeds);
    while (!step.done()) step.step();
  });
  for (size_t i = 0; i < w_run.size(); ++i) require_same_bits(w_run[i].grad(), w_step[i].grad());
}

}  // namespace
}  // namespace tg
