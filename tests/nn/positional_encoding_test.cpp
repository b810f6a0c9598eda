#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("nn::SinusoidalPositionalEncoding: hand-worked table, added to x, a non-persistent buffer") {
  nn::SinusoidalPositionalEncoding pe(3, 4);
  // d_model 4: pair i = 0 has frequency 1, pair i = 1 has 1/10000^(2/4) = 1/100.
  //   pos 0: sin 0, cos 0, sin 0, cos 0
  //   pos 1: sin 1, cos 1, sin .01, cos .01
  //   pos 2: sin 2, cos 2, sin .02, cos .02
  require_values(pe.table, {0, 1, 0, 1,
                            0.841470984808, 0.540302305868, 0.009999833334, 0.999950000417,
                            0.909297426826, -0.416146836547, 0.019998666693, 0.999800006667}, 1e-7);
  CHECK(pe.state_dict().empty());
  CHECK(names_of(pe.named_buffers()) == std::vector<std::string>{"pe"});
  CHECK(pe.parameters().empty());
  // x (2,2,4) of ones: every batch gets rows 0 and 1 added.
  Tensor y = pe.forward(ones({2, 2, 4}));
  require_values(y, {1, 2, 1, 2, 1.841470984808, 1.540302305868, 1.009999833334, 1.999950000417,
                     1, 2, 1, 2, 1.841470984808, 1.540302305868, 1.009999833334, 1.999950000417}, 1e-6);
  // Odd d_model: the last column is a sine of frequency 1/10000^(2/3) = 1/464.158883.
  nn::SinusoidalPositionalEncoding odd(2, 3);
  require_values(odd.table, {0, 1, 0, 0.841470984808, 0.540302305868, 0.002154431}, 1e-7);
  pe.to_(kF64);
  CHECK(pe.forward(zeros({3, 4}, kF64)).dtype() == kF64);
}

TEST_CASE("nn::PositionalEncoding: T > max_len and wrong widths are errors") {
  nn::SinusoidalPositionalEncoding pe(3, 4);
  CHECK_THROWS_WITH_AS(pe.forward(zeros({2, 4, 4})),
                       doctest::Contains("SinusoidalPositionalEncoding: sequence length T=4 exceeds max_len=3"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(pe.forward(zeros({2, 3, 5})),
                       doctest::Contains("SinusoidalPositionalEncoding: expected x (..., T, 4) float32, got (2,3,5)"),
                       tg::Error);
  nn::LearnedPositionalEncoding learned(3, 4);
  CHECK_THROWS_WITH_AS(learned.forward(zeros({4, 4})),
                       doctest::Contains("LearnedPositionalEncoding: sequence length T=4 exceeds max_len=3"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(nn::LearnedPositionalEncoding(0, 4), doctest::Contains("max_len and d_model must be positive"),
                       tg::Error);
}

TEST_CASE("nn::PositionalEncoding: forward_of_embedding is one op with the two modules' values and gradients") {
  // Learned and sinusoidal tables; one op as built, the two modules' ops (embedding, slice, add)
  // when composed or when a forward hook watches the embedding, each with the same bits.
  const Tensor indices = tensor_i64({3, 1, 4, 1, 5, 9, 2, 6}, {2, 4});
  using Prepare = std::function<void(nn::Embedding&, nn::PositionalEncoding&)>;
  for (bool learned : {true, false}) {
    CAPTURE(learned);
    auto run = [&](const Prepare& prepare) {
      manual_seed(4);
      nn::Embedding embedding(10, 6);
      std::shared_ptr<nn::PositionalEncoding> pe;
      if (learned)
        pe = std::make_shared<nn::LearnedPositionalEncoding>(5, 6);
      else
        pe = std::make_shared<nn::SinusoidalPositionalEncoding>(5, 6);
      if (prepare) prepare(embedding, *pe);
      tape().clear();
      Tensor y = pe->forward_of_embedding(embedding, indices);
      std::vector<std::string> ops;
      for (const auto& e : tape().entries()) ops.push_back(e->op);
      sum(mul(y, y)).backward();
      return std::tuple{y, embedding.weight.grad(), learned ? pe->table.grad() : Tensor(), ops};
    };
    const auto [y, dw, dp, ops] = run(nullptr);
    CHECK(ops == std::vector<std::string>{"embedding_add_positions"});
    Tensor seen;
    const Prepare hook = [&seen](nn::Embedding& e, nn::PositionalEncoding&) {
      e.register_forward_hook([&seen](const nn::Module&, const TensorList&, const TensorList& out) { seen = out[0]; });
    };
    const Prepare compose = [](nn::Embedding& e, nn::PositionalEncoding& pe) {
      e.set_composed(true);
      pe.set_composed(true);
    };
    for (const Prepare& prepare : {hook, compose}) {
      const auto [y2, dw2, dp2, ops2] = run(prepare);
      // (a sinusoidal table needs no gradient: its slice records nothing)
      CHECK(ops2 == (learned ? std::vector<std::string>{"embedding", "slice", "add"}
                             : std::vector<std::string>{"embedding", "add"}));
      require_close(y2, y, 0, 0);
      require_close(dw2, dw, 0, 0);
      if (learned) require_close(dp2, dp, 0, 0);
    }
    REQUIRE(seen.defined());
    CHECK(seen.shape() == Shape{2, 4, 6});  // the embedding's own output
  }
  nn::Embedding embedding(10, 6);
  nn::SinusoidalPositionalEncoding pe(3, 6);
  CHECK_THROWS_WITH_AS(
      pe.forward_of_embedding(embedding, indices),
      doctest::Contains("SinusoidalPositionalEncoding: sequence length T=4 exceeds max_len=3 (indices"), tg::Error);
  nn::SinusoidalPositionalEncoding narrow(5, 4);
  CHECK_THROWS_WITH_AS(narrow.forward_of_embedding(embedding, indices),
                       doctest::Contains("expected indices (..., T) and an embedding of dim 4 float32"), tg::Error);
}

TEST_CASE("nn::LearnedPositionalEncoding: a trained table, gradcheck") {
  nn::LearnedPositionalEncoding pe(4, 3);
  CHECK(names_of(pe.named_parameters()) == std::vector<std::string>{"weight"});
  for (float w : pe.table.to_vector<float>()) CHECK(std::abs(w) < 0.02 * 6);  // N(0, 0.02^2)
  pe.to_(kF64);
  // T = 2 < max_len: rows 2 and 3 get zero gradient (checked too).
  require_module_gradcheck(pe, {rand64({2, 2, 3}, 1)},
                           [&](const std::vector<Tensor>& in) { return pe.forward(in[0]); });
}
