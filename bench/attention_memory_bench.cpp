// attention_memory_bench: peak memory and time of ONE attention layer's forward + backward in
// tapegrad: q, k, v (1, heads, T, head_size) float32 leaves, out = attention(q, k, v) without
// mask, out.backward(g). One (variant, T) per process, so that every run starts from a clean
// heap; bench/attention_memory.sh runs them all and prints the table.
//   --variant fused:    fused_attention (ops/fused_attention): O(T) memory per query row
//   --variant composed: scaled_dot_product_attention (ops/attention): stores (T, T) scores
// Flags and the result line: bench/attention_memory_args.h. delta_mib is the peak RSS (VmHWM,
// restarted once the inputs exist) after the first run minus the RSS at the restart (later runs
// would add what the allocator kept from the earlier ones); ms the median of --reps runs.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench/attention_memory_args.h"
#include "bench/peak_rss.h"
#include "core/factories.h"
#include "nn/attention.h"
#include "ops/fused/fused_attention/fused_attention.h"

int main(int argc, char** argv) try {
  using namespace tg;
  const bench::AttentionMemoryArgs args = bench::parse_attention_memory_args(argc, argv);
  if (args.variant != "fused" && args.variant != "composed")
    throw std::runtime_error("--variant must be fused or composed");
  if (args.threads > 0) omp_set_num_threads(static_cast<int>(args.threads));
  Generator gen(1);
  const Shape shape{1, args.heads, args.T, args.head_size};
  Tensor q = randn(shape, kF32, kCPU, gen).requires_grad_(), k = randn(shape, kF32, kCPU, gen).requires_grad_();
  Tensor v = randn(shape, kF32, kCPU, gen).requires_grad_(), grad = randn(shape, kF32, kCPU, gen);

  bench::reset_peak_rss();
  const double base = bench::rss_mib();
  std::vector<double> ms;
  double peak = 0;  // after the first run: later runs would add the allocator's leftovers
  for (long rep = 0; rep < args.reps; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    {
      Tensor out = args.variant == "fused" ? fused_attention(q, k, v) : scaled_dot_product_attention(q, k, v).output;
      out.backward(grad);
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (rep == 0) peak = bench::peak_rss_mib();
    for (Tensor* t : {&q, &k, &v}) t->zero_grad();
  }
  std::sort(ms.begin(), ms.end());
  bench::print_attention_memory_result(args, omp_get_max_threads(), base, peak, ms[ms.size() / 2]);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "attention_memory_bench: %s\n", e.what());
  return 1;
}
