// attention_memory_libtorch: the libtorch counterpart of attention_memory_bench: the same layer,
// softmax(q k^T / sqrt(head_size)) v composed from libtorch ops (what a libtorch user writes by
// hand; libtorch 1.13 has no fused CPU attention), forward + backward, one T per process.
// Flags and the result line: bench/attention_memory_args.h (--variant is printed, not used).
// Built only with -DTAPEGRAD_BENCH_LIBTORCH=ON where find_package(Torch) succeeds.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench/attention_memory_args.h"
#include "bench/peak_rss.h"

int main(int argc, char** argv) try {
  tg::bench::AttentionMemoryArgs args = tg::bench::parse_attention_memory_args(argc, argv);
  args.variant = "libtorch";
  if (args.threads > 0) torch::set_num_threads(static_cast<int>(args.threads));
  torch::manual_seed(1);
  const std::vector<int64_t> shape{1, args.heads, args.T, args.head_size};
  auto leaf = [&] { return torch::randn(shape, torch::requires_grad()); };
  torch::Tensor q = leaf(), k = leaf(), v = leaf(), grad = torch::randn(shape);
  const double scale = 1 / std::sqrt(static_cast<double>(args.head_size));

  tg::bench::reset_peak_rss();
  const double base = tg::bench::rss_mib();
  std::vector<double> ms;
  double peak = 0;  // after the first run: later runs would add the allocator's leftovers
  for (long rep = 0; rep < args.reps; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    {
      torch::Tensor out = torch::matmul(torch::softmax(torch::matmul(q, k.transpose(-2, -1)) * scale, -1), v);
      out.backward(grad);
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (rep == 0) peak = tg::bench::peak_rss_mib();
    for (torch::Tensor* t : {&q, &k, &v}) t->mutable_grad() = torch::Tensor();
  }
  std::sort(ms.begin(), ms.end());
  tg::bench::print_attention_memory_result(args, torch::get_num_threads(), base, peak, ms[ms.size() / 2]);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "attention_memory_libtorch: %s\n", e.what());
  return 1;
}
