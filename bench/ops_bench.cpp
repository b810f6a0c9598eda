// ops_bench: the memory-bound ops of a small Transformer's training step, forward and
// forward + backward, fp32, at the shapes of the toy config (B 32, T 64, d_model 128, 4 heads,
// ffn 512: rows = B*T = 2048), on 1 and 2 threads; beside each, a memcpy moving the same bytes.
// bench/libtorch/ops_libtorch.cpp runs the same cases through libtorch, and
// bench/ops_side_by_side.sh puts the two in one table.
//
//   ops_bench [--threads N]... [--filter SUBSTRING] [--cpu-time]
//
// Rows: "fwd" runs the op without recording (NoGradGuard); "fwd+bwd" runs it with its input
// requiring grad, then backward from a fixed gradient (the input's .grad is dropped after
// each iteration, so every iteration does the same work). Bytes are what the op itself must
// read and write (inputs once, outputs once; f32 = 4 B, bool = 1 B); "memcpy" is the time of a
// memcpy moving as many bytes (reading half, writing half), split over the same threads.
// Output: a human table, and one machine-readable line per row: "RESULT op|shape|threads|dir|us|memcpy_us".
#include <fmt/format.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/ops_bench_args.h"
#include "tapegrad.h"

using namespace tg;

namespace {

double memcpy_us(int64_t bytes, const ops_bench::Timer& timer) {  // reads bytes/2, writes bytes/2
  const int64_t half = bytes / 2;
  std::vector<char> src(half, 1), dst(half);
  return timer.median_us([&] {
#pragma omp parallel
    {
      const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
      std::memcpy(dst.data() + half * t / n, src.data() + half * t / n, half * (t + 1) / n - half * t / n);
    }
  });
}

struct Case {
  std::string op, shape;
  int64_t fwd_bytes, bwd_bytes;      // what forward alone / backward alone must move
  std::function<Tensor()> forward;   // the op on its inputs
  std::vector<Tensor> grad_inputs;   // the inputs that require grad in the fwd+bwd row
};

Tensor randn_f32(const Shape& shape) { return randn(shape, kF32); }

std::vector<Case> cases() {
  constexpr int64_t N = 2048, C = 128, H = 512, V = 64, kF = 4;  // rows, d_model, ffn, classes; f32 bytes
  const int64_t S = 32 * 4 * 64 * 64;                              // attention scores (B, NH, T, T)
  std::vector<Case> cs;
  {
    Tensor x = randn_f32({N, H}), b = randn_f32({H});  // a Linear's bias: only b needs grad
    cs.push_back({"add bias", "(2048,512)+(512)", 2 * N * H * kF, N * H * kF, [=] { return add(x, b); }, {b}});
  }
  {
    Tensor x = randn_f32({N, C}), y = randn_f32({N, C});  // the residual
    cs.push_back({"add", "(2048,128)+(2048,128)", 3 * N * C * kF, 2 * N * C * kF, [=] { return add(x, y); }, {x, y}});
  }
  {
    Tensor x = randn_f32({N, H}), y = randn_f32({N, H});
    cs.push_back({"mul", "(2048,512)*(2048,512)", 3 * N * H * kF, 6 * N * H * kF, [=] { return mul(x, y); }, {x, y}});
  }
  {  // a Transformer's input, embedding(ids) + positions: the ids as the toy config's (B 32, T 64)
    std::vector<int64_t> t(N);
    for (int64_t i = 0; i < N; ++i) t[i] = (i * 7) % V;
    Tensor ids = tensor_i64(t, {32, 64}), w = randn_f32({V, C}), pos = randn_f32({64, C});
    // gathered rows, the positions and the ids in, out; backward: grad in, the table's and the
    // positions' gradients out
    const int64_t fwd = (2 * N * C + 64 * C) * kF + N * 8, bwd = (N * C + (V + 64) * C) * kF;
    cs.push_back({"embedding+pos", "(32,64) of (64,128)", fwd, bwd,
                  [=] { return embedding_add_positions(ids, w, pos); }, {w, pos}});
  }
  {
    Tensor x = randn_f32({N, C}), w = randn_f32({C}), b = randn_f32({C});
    cs.push_back({"layer_norm", "(2048,128)", 2 * N * C * kF, 3 * N * C * kF,
                  [=] { return layer_norm(x, {C}, w, b); }, {x, w, b}});
  }
  {  // a post-LN residual connection, layer_norm(residual + dropout(x)): one fused op, and its two ops
    Tensor residual = randn_f32({N, C}), x = randn_f32({N, C}), w = randn_f32({C}), b = randn_f32({C});
    const int64_t fwd = 3 * N * C * kF + N * C, bwd = 5 * N * C * kF + N * C;  // + the mask's bytes
    cs.push_back({"post-LN", "(2048,128)", fwd, bwd,
                  [=] { return dropout_add_layer_norm(residual, x, 0.1, true, {C}, w, b); }, {residual, x, w, b}});
    cs.push_back({"dropout_add,LN", "(2048,128)", fwd, bwd,
                  [=] { return layer_norm(dropout_add(residual, x, 0.1, true), {C}, w, b); }, {residual, x, w, b}});
  }
  {  // a feed-forward's first layer, dropout(relu(linear(x))): one fused op, and linear then relu_dropout
    Tensor x = randn_f32({N, C}), w = randn_f32({H, C}), b = randn_f32({H});
    // x, weight, bias in, out and the mask out; backward: grad, mask, x, weight in, dx, dweight out
    const int64_t fwd = (N * C + H * C + H + N * H) * kF + N * H, bwd = (N * H + 2 * N * C + 2 * H * C) * kF + N * H;
    cs.push_back({"FFN1", "(2048,128)->512", fwd, bwd, [=] { return linear_relu_dropout(x, w, b, 0.1, true); },
                  {x, w, b}});
    cs.push_back({"linear,relu_dropout", "(2048,128)->512", fwd, bwd,
                  [=] { return relu_dropout(linear(x, w, b), 0.1, true); }, {x, w, b}});
  }
  {
    Tensor x = randn_f32({32, 4, 64, 64});
    cs.push_back({"softmax", "(32,4,64,64)", 2 * S * kF, 3 * S * kF, [=] { return softmax(x, -1); }, {x}});
  }
  {
    std::vector<bool> causal(64 * 64);
    for (int64_t i = 0; i < 64; ++i)
      for (int64_t j = 0; j < 64; ++j) causal[i * 64 + j] = j > i;
    Tensor x = randn_f32({32, 4, 64, 64}), mask = tensor_bool(causal, {64, 64});
    cs.push_back({"masked_fill", "(32,4,64,64) mask (64,64)", 2 * S * kF, 2 * S * kF,
                  [=] { return masked_fill(x, mask, -INFINITY); }, {x}});
  }
  {
    std::vector<int64_t> t(N);
    for (int64_t i = 0; i < N; ++i) t[i] = (i * 7) % V;
    Tensor logits = randn_f32({N, V}), target = tensor_i64(t, {N});
    cs.push_back({"cross_entropy", "(2048,64)", N * V * kF, 2 * N * V * kF,
                  [=] { return cross_entropy(logits, target); }, {logits}});
  }
  for (int64_t width : {C, H}) {
    Tensor x = randn_f32({N, width});
    const int64_t n = N * width;
    cs.push_back({"dropout p=0.1", fmt::format("(2048,{})", width), 2 * n * kF + n, 2 * n * kF + n,
                  [=] { return dropout(x, 0.1, true); }, {x}});
  }
  {
    Tensor x = randn_f32({N, H});
    cs.push_back({"gelu", "(2048,512)", 2 * N * H * kF, 3 * N * H * kF, [=] { return gelu(x); }, {x}});
    // numerics version 1's erf (core/numerics.h), which older runs keep: no libtorch row
    cs.push_back({"gelu numerics 1", "(2048,512)", 2 * N * H * kF, 3 * N * H * kF, [=] {
                    const NumericsGuard version(1);
                    return gelu(x);
                  }, {x}});
    cs.push_back({"relu", "(2048,512)", 2 * N * H * kF, 3 * N * H * kF, [=] { return relu(x); }, {x}});
  }
  return cs;
}

void print_row(const Case& c, const ops_bench::Timer& timer, const char* dir, double us, int64_t bytes) {
  const double mc = memcpy_us(bytes, timer);
  fmt::print("{:<14} {:<26} {:>2} {:<8} {:>9.1f} {:>8.1f} {:>9.1f} {:>6.2f}\n", c.op, c.shape, timer.threads, dir,
             us, bytes / us / 1e3, mc, us / mc);
  fmt::print("RESULT {}|{}|{}|{}|{:.2f}|{:.2f}\n", c.op, c.shape, timer.threads, dir, us, mc);
}

}  // namespace

int main(int argc, char** argv) {
  const ops_bench::Args args = ops_bench::parse_args(argc, argv);
  manual_seed(0);
  fmt::print("{:<14} {:<26} {:>2} {:<8} {:>9} {:>8} {:>9} {:>6}\n", "op", "shape", "th", "dir", "us", "GB/s",
             "memcpy us", "x mcpy");
  for (Case& c : cases()) {
    if (!args.filter.empty() && c.op.find(args.filter) == std::string::npos) continue;
    for (int threads : args.thread_counts) {
      omp_set_num_threads(threads);
      const ops_bench::Timer timer{args.cpu_time, threads};
      {
        NoGradGuard no_grad;
        print_row(c, timer, "fwd", timer.median_us([&] { c.forward(); }), c.fwd_bytes);
      }
      for (Tensor& t : c.grad_inputs) t.requires_grad_(true);
      const Tensor grad = randn(c.forward().shape(), kF32);
      const double us = timer.median_us([&] {
        c.forward().backward(grad);
        for (Tensor& t : c.grad_inputs) t.zero_grad();
      });
      for (Tensor& t : c.grad_inputs) t.requires_grad_(false);
      print_row(c, timer, "fwd+bwd", us, c.fwd_bytes + c.bwd_bytes);
    }
  }
  return 0;
}
