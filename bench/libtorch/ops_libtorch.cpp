// ops_libtorch: bench/ops_bench.cpp's cases through libtorch (the same ops, shapes, rows and
// timing), for bench/ops_side_by_side.sh. Built only with -DTAPEGRAD_BENCH_LIBTORCH=ON where
// find_package(Torch) succeeds (Debian's libtorch-dev).
//
//   ops_libtorch [--threads N]... [--filter SUBSTRING] [--cpu-time]
//
// Output: one line per row, "RESULT op|shape|threads|dir|us".
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/ops_bench_args.h"

namespace {

struct Case {
  std::string op, shape;
  std::function<torch::Tensor()> forward;
  std::vector<torch::Tensor> grad_inputs;
};

std::vector<Case> cases() {
  constexpr int64_t N = 2048, C = 128, H = 512, V = 64;
  const auto f32 = torch::kFloat32;
  std::vector<Case> cs;
  {
    auto x = torch::randn({N, H}, f32), b = torch::randn({H}, f32);
    cs.push_back({"add bias", "(2048,512)+(512)", [=] { return x + b; }, {b}});
  }
  {
    auto x = torch::randn({N, C}, f32), y = torch::randn({N, C}, f32);
    cs.push_back({"add", "(2048,128)+(2048,128)", [=] { return x + y; }, {x, y}});
  }
  {
    auto x = torch::randn({N, H}, f32), y = torch::randn({N, H}, f32);
    cs.push_back({"mul", "(2048,512)*(2048,512)", [=] { return x * y; }, {x, y}});
  }
  {
    auto ids = torch::arange(N, torch::kInt64).mul(7).remainder(V).view({32, 64});
    auto w = torch::randn({V, C}, f32), pos = torch::randn({64, C}, f32);
    cs.push_back({"embedding+pos", "(32,64) of (64,128)", [=] { return torch::embedding(w, ids) + pos; }, {w, pos}});
  }
  {
    auto x = torch::randn({N, C}, f32), w = torch::randn({C}, f32), b = torch::randn({C}, f32);
    cs.push_back({"layer_norm", "(2048,128)", [=] { return torch::layer_norm(x, {C}, w, b); }, {x, w, b}});
  }
  {
    auto residual = torch::randn({N, C}, f32), x = torch::randn({N, C}, f32), w = torch::randn({C}, f32),
         b = torch::randn({C}, f32);
    cs.push_back({"post-LN", "(2048,128)",
                  [=] { return torch::layer_norm(residual + torch::dropout(x, 0.1, true), {C}, w, b); },
                  {residual, x, w, b}});
  }
  {
    auto x = torch::randn({N, C}, f32), w = torch::randn({H, C}, f32), b = torch::randn({H}, f32);
    cs.push_back({"FFN1", "(2048,128)->512",
                  [=] { return torch::dropout(torch::relu(torch::linear(x, w, b)), 0.1, true); }, {x, w, b}});
  }
  {
    auto x = torch::randn({32, 4, 64, 64}, f32);
    cs.push_back({"softmax", "(32,4,64,64)", [=] { return torch::softmax(x, -1); }, {x}});
  }
  {
    auto x = torch::randn({32, 4, 64, 64}, f32);
    auto mask = torch::ones({64, 64}, torch::kBool).triu(1);
    cs.push_back({"masked_fill", "(32,4,64,64) mask (64,64)", [=] { return x.masked_fill(mask, -INFINITY); }, {x}});
  }
  {
    auto logits = torch::randn({N, V}, f32);
    auto target = torch::arange(N, torch::kInt64).mul(7).remainder(V);
    cs.push_back({"cross_entropy", "(2048,64)", [=] { return torch::nn::functional::cross_entropy(logits, target); },
                  {logits}});
  }
  for (int64_t width : {C, H}) {
    auto x = torch::randn({N, width}, f32);
    cs.push_back({"dropout p=0.1", "(2048," + std::to_string(width) + ")", [=] { return torch::dropout(x, 0.1, true); },
                  {x}});
  }
  {
    auto x = torch::randn({N, H}, f32);
    cs.push_back({"gelu", "(2048,512)", [=] { return torch::gelu(x); }, {x}});
    cs.push_back({"relu", "(2048,512)", [=] { return torch::relu(x); }, {x}});
  }
  return cs;
}

}  // namespace

int main(int argc, char** argv) {
  const ops_bench::Args args = ops_bench::parse_args(argc, argv);
  torch::manual_seed(0);
  for (Case& c : cases()) {
    if (!args.filter.empty() && c.op.find(args.filter) == std::string::npos) continue;
    for (int threads : args.thread_counts) {
      torch::set_num_threads(threads);
      const ops_bench::Timer timer{args.cpu_time, threads};
      {
        torch::NoGradGuard no_grad;
        const double us = timer.median_us([&] { c.forward(); });
        std::printf("RESULT %s|%s|%d|fwd|%.2f\n", c.op.c_str(), c.shape.c_str(), threads, us);
      }
      for (auto& t : c.grad_inputs) t.requires_grad_(true);
      const auto grad = torch::randn(c.forward().sizes(), torch::kFloat32);
      const double us = timer.median_us([&] {
        c.forward().backward(grad);
        for (auto& t : c.grad_inputs) t.mutable_grad().reset();
      });
      for (auto& t : c.grad_inputs) t.requires_grad_(false);
      std::printf("RESULT %s|%s|%d|fwd+bwd|%.2f\n", c.op.c_str(), c.shape.c_str(), threads, us);
      std::fflush(stdout);
    }
  }
  return 0;
}
