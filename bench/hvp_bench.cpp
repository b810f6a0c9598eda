// hvp_bench: what create_graph costs. On a small Transformer encoder layer's loss, float32 on the
// CPU, it times (median of --reps, after a warm-up) and measures the peak tensor memory of
//   gradient  forward + backward (the fast paths)
//   hvp       forward + backward with create_graph (the reference rules, recorded) + a second
//             backward: a Hessian-vector product
// and prints one line per measure and their ratios.
//   tapegrad_hvp_bench [--reps N] [--batch B] [--seq T] [--d-model E] [--threads N]
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <omp.h>

#include <tapegrad.h>

namespace {

struct Args {
  int reps = 20;
  int64_t batch = 8, seq = 32, d_model = 64;
  int threads = 0;  // 0: OpenMP's default
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long long value = std::stoll(argv[i + 1]);
    if (flag == "--reps") a.reps = static_cast<int>(value);
    else if (flag == "--batch") a.batch = value;
    else if (flag == "--seq") a.seq = value;
    else if (flag == "--d-model") a.d_model = value;
    else if (flag == "--threads") a.threads = static_cast<int>(value);
    else throw tg::Error("hvp_bench", fmt::format("unknown flag {}", flag));
  }
  if (argc % 2 == 0) throw tg::Error("hvp_bench", "every flag takes a value");
  return a;
}

struct Measure {
  double median_ms;
  int64_t peak_bytes;
};

template <class Fn> Measure measure(const Args& args, Fn&& fn) {
  fn();  // warm-up: the caching allocator fills, the first-touch costs are paid
  std::vector<double> ms;
  tg::reset_peak_memory_stats();
  const int64_t before = tg::memory_stats().in_use_bytes;
  for (int r = 0; r < args.reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return {ms[ms.size() / 2], tg::memory_stats().peak_in_use_bytes - before};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tg;
  const Args args = parse(argc, argv);
  if (args.threads > 0) omp_set_num_threads(args.threads);
  manual_seed(0);
  nn::EncoderLayer layer(args.d_model, 4, 4 * args.d_model, /*dropout=*/0.0);
  const Tensor x = randn({args.batch, args.seq, args.d_model}), target = randn({args.batch, args.seq, args.d_model});
  const std::vector<Tensor> params = layer.parameters();
  std::vector<Tensor> v;
  for (const Tensor& p : params) v.push_back(randn(p.shape()));
  auto loss = [&] {
    Tensor d = sub(layer.forward(x), target);
    return mean(mul(d, d));
  };

  const Measure gradient = measure(args, [&] { grad({loss()}, params); });
  const Measure hvp = measure(args, [&] {
    const TensorList g = grad({loss()}, params, {}, {.create_graph = true});
    grad(g, params, v);
  });
  fmt::print("encoder layer B={} T={} E={}, float32, {} threads, median of {}\n", args.batch, args.seq, args.d_model,
             omp_get_max_threads(), args.reps);
  fmt::print("gradient  {:8.2f} ms  peak {:7.2f} MiB\n", gradient.median_ms, gradient.peak_bytes / 1048576.0);
  fmt::print("hvp       {:8.2f} ms  peak {:7.2f} MiB\n", hvp.median_ms, hvp.peak_bytes / 1048576.0);
  fmt::print("hvp / gradient: time {:.2f}x, memory {:.2f}x\n", hvp.median_ms / gradient.median_ms,
             static_cast<double>(hvp.peak_bytes) / static_cast<double>(gradient.peak_bytes));
}
