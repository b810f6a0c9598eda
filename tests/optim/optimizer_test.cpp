#include "optim_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("optimizer: weight_decay_groups splits biases, 1-D tensors and norms from matrices") {
  std::vector<NamedParameter> params = {
      param("linear.weight", {1, 2, 3, 4}, {2, 2}), param("linear.bias", {1, 2}),
      param("norm1.weight", {1, 2}), param("encoder.LayerNorm.weight", {1, 2, 3, 4}, {2, 2}),
      param("embedding.weight", {1, 2, 3, 4, 5, 6}, {3, 2})};
  std::vector<ParamGroup> groups = weight_decay_groups(params);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].name == "decay");
  CHECK(groups[1].name == "no_decay");
  auto names = [](const ParamGroup& g) {
    std::vector<std::string> out;
    for (const NamedParameter& p : g.params) out.push_back(p.name);
    return out;
  };
  CHECK(names(groups[0]) == std::vector<std::string>{"linear.weight", "embedding.weight"});
  CHECK(names(groups[1]) == std::vector<std::string>{"linear.bias", "norm1.weight", "encoder.LayerNorm.weight"});

  // The optimizer fills in what the groups leave unset: decay takes its weight_decay, no_decay keeps 0.
  AdamW opt(groups, {.lr = 0.5, .weight_decay = 0.1});
  CHECK(*opt.groups()[0].lr == 0.5);
  CHECK(*opt.groups()[0].weight_decay == 0.1);
  CHECK(*opt.groups()[1].lr == 0.5);
  CHECK(*opt.groups()[1].weight_decay == 0);
  CHECK(opt.parameters().size() == 5);
}

TEST_CASE("optimizer: per-group lr and weight decay, set_lr for all groups or one") {
  NamedParameter a = param("a", {1}), b = param("b", {1});
  SGD opt({ParamGroup{"fast", {a}, 1.0, {}}, ParamGroup{"slow", {b}, {}, 0.5}}, {.lr = 0.1});
  set_grad(a, {1});
  set_grad(b, {1});
  opt.step();
  require_values(a.tensor, {0}, 1e-12);     // 1 - 1.0 * 1
  require_values(b.tensor, {0.85}, 1e-12);  // 1 - 0.1 * (1 + 0.5 * 1)
  opt.set_lr("slow", 0.2);
  CHECK(*opt.groups()[0].lr == 1.0);
  CHECK(*opt.groups()[1].lr == 0.2);
  opt.set_lr(0.3);
  CHECK(*opt.groups()[0].lr == 0.3);
  CHECK(*opt.groups()[1].lr == 0.3);
  CHECK_THROWS_WITH_AS(opt.set_lr(-1), "sgd: lr must be >= 0, got -1", Error);
  CHECK_THROWS_WITH_AS(opt.set_lr("slow", -1), "sgd: lr must be >= 0, got -1", Error);
  CHECK_THROWS_WITH_AS(opt.set_lr("medium", 1), "sgd: set_lr: no parameter group named 'medium' (groups: fast, slow)",
                       Error);
  CHECK(*opt.groups()[1].lr == 0.3);
}

TEST_CASE("optimizer: step skips parameters without grad, bumps versions, zero_grad drops grads") {
  NamedParameter a = param("a", {1, 2}), b = param("b", {3});
  Adam opt({a, b}, {.lr = 0.1});
  set_grad(a, {1, 1});
  const uint64_t a_version = a.tensor.storage()->version(), b_version = b.tensor.storage()->version();
  opt.step();
  CHECK(a.tensor.storage()->version() > a_version);
  CHECK(b.tensor.storage()->version() == b_version);
  require_values(b.tensor, {3});
  CHECK(keys(opt.state_dict()) == std::vector<std::string>{"options.beta1", "options.beta2", "options.eps", "group.0.lr",
                                                          "group.0.weight_decay", "state.a.step", "state.a.exp_avg",
                                                          "state.a.exp_avg_sq"});
  opt.zero_grad();
  CHECK_FALSE(a.tensor.grad().defined());
  const std::vector<double> before = a.tensor.to_vector<double>();
  opt.step();  // no gradients: nothing changes
  CHECK(a.tensor.to_vector<double>() == before);
  CHECK(entry(opt.state_dict(), "state.a.step").item() == 1);
}

TEST_CASE("optimizer: a step between forward and backward is caught by the tape") {
  NamedParameter w = param("w", {1, 2});
  SGD opt({w}, {.lr = 0.1});
  // A tape entry that saved w, as multiplying by w would.
  Tensor out = contiguous_copy(w.tensor.detach());
  Recorder rec("uses_w", {w.tensor}, {out});
  REQUIRE(rec);
  rec.save("w", w.tensor);
  rec.backward([](const BackwardContext& ctx) -> TensorList { return {ctx.grad()}; });
  set_grad(w, {1, 1});
  opt.step();
  CHECK_THROWS_WITH_AS(sum(out).backward(), doctest::Contains("saved tensor 'w' (2,) of tape entry"), Error);
}

TEST_CASE("optimizer: parameters are checked at construction, naming the parameter") {
  NamedParameter ok = param("ok", {1});
  Tensor plain = tensor({1, 2});
  CHECK_THROWS_WITH_AS(SGD({NamedParameter{"w", plain}}), "sgd: parameter 'w' (2,) float32 does not require grad", Error);
  Tensor computed = add(ok.tensor, ok.tensor);
  CHECK_THROWS_WITH_AS(Adam({NamedParameter{"sum", computed}}),
                       doctest::Contains("adam: parameter 'sum' (1,) float64 is not a leaf (it was computed by 'add')"), Error);
  CHECK_THROWS_WITH_AS(SGD({NamedParameter{"t", noncontig64({2, 3}, 1)}}),
                       "sgd: parameter 't' (2,3) float64 is not contiguous", Error);
  CHECK_THROWS_WITH_AS(SGD({NamedParameter{"i", tensor_i64({1, 2})}}),
                       "sgd: parameter 'i' must be float32 or float64, got (2,) int64", Error);
  CHECK_THROWS_WITH_AS(SGD({NamedParameter{"u", Tensor()}}), "sgd: parameter 'u' is an undefined tensor", Error);
  CHECK_THROWS_WITH_AS(SGD({ok, ok}), "sgd: parameter 'ok' appears twice", Error);
  Tensor alias = ok.tensor.detach();
  alias.requires_grad_();
  CHECK_THROWS_WITH_AS(SGD({ok, NamedParameter{"alias", alias}}),
                       "sgd: parameter 'alias' shares its storage with parameter 'ok'", Error);
  CHECK_THROWS_WITH_AS(SGD({NamedParameter{"", ok.tensor}}), "sgd: a parameter has an empty name", Error);
  CHECK_THROWS_WITH_AS(SGD(std::vector<NamedParameter>{}), "sgd: got an empty parameter list", Error);
  CHECK_THROWS_WITH_AS(SGD({ParamGroup{"g", {ok}, {}, {}}, ParamGroup{"g", {}, {}, {}}}),
                       "sgd: two parameter groups are named 'g'", Error);
  CHECK_THROWS_WITH_AS(SGD({ParamGroup{"g", {ok}, -1.0, {}}}), "sgd: lr of group 'g' must be >= 0, got -1", Error);
}

TEST_CASE("optimizer: a checkpoint taken on the GPU resumes on the CPU, and back") {
  if (!gpu_available_or_skip()) return;
  // Two AdamW steps on the GPU, then the third on both devices from the same checkpoint: the
  // buffers move to each parameter's device in load_state_dict.
  NamedParameter host = param("w", {1, -2, 0.5});
  NamedParameter gpu = param_on(host, Device::cuda());
  AdamW on_gpu({gpu}, {.lr = 0.1});
  for (const std::vector<double>& g : {std::vector<double>{0.4, -1, 0.2}, std::vector<double>{0.2, 0.5, -0.3}}) {
    set_grad(gpu, g);
    on_gpu.step();
  }
  const StateDict saved = on_gpu.state_dict();
  CHECK(entry(saved, "state.w.exp_avg").is_cuda());
  copy_(host.tensor.detach(), gpu.tensor);
  AdamW on_cpu({host}, {.lr = 0.1});
  on_cpu.load_state_dict(saved);
  CHECK(entry(on_cpu.state_dict(), "state.w.exp_avg").is_cpu());
  on_gpu.load_state_dict(on_cpu.state_dict());  // CPU buffers back onto the GPU
  set_grad(host, {1, 1, -1});
  set_grad(gpu, {1, 1, -1});
  on_cpu.step();
  on_gpu.step();
  require_close(to_device_copy(gpu.tensor, kCPU), host.tensor, 1e-12, 1e-12);
  CHECK(entry(on_gpu.state_dict(), "state.w.step").item() == 3);
}
