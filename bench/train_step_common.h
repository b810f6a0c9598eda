#pragma once
// What the two training-step benchmarks (train_step_bench.cpp for tapegrad,
// libtorch/train_step_libtorch.cpp for libtorch) share, so that they measure the same thing and
// print the same line: the configs, the command line, the matmul FLOP count, the timing
// summary and the JSON output. Header-only and free of tapegrad's headers (the libtorch
// benchmark includes it too).
//
// The model, in both: token embedding (V, E) + learned position embedding (T, E), L post-LN
// encoder layers (self-attention with NH heads, ReLU feed-forward of width F, dropout 0.1),
// an output Linear (E -> V), cross-entropy against random targets. One step = forward +
// backward + AdamW (lr 1e-3, weight decay 0.01) + zero_grad, fp32.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace train_step_bench {

// n ids in [0, vocab) from a fixed LCG, so both benchmarks draw the same tokens and targets.
inline std::vector<int64_t> random_ids(int64_t n, int64_t vocab, uint64_t seed) {
  std::vector<int64_t> ids(n);
  for (int64_t& id : ids) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    id = static_cast<int64_t>((seed >> 33) % static_cast<uint64_t>(vocab));
  }
  return ids;
}

struct Config {
  std::string name;
  int64_t vocab, d_model, heads, ffn, layers, seq, batch;
};

inline const std::vector<Config>& configs() {
  static const std::vector<Config> all = {
      {"toy", 64, 128, 4, 512, 2, 64, 32},
      {"larger", 64, 256, 8, 1024, 4, 128, 16},
  };
  return all;
}

// Multiply-add FLOPs (2 per multiply-add) of every matrix product of one step. Per layer, with
// M = B*T rows: the q, k, v and output projections 4 * 2*M*E*E, the feed-forward 2 * 2*M*E*F,
// the scores q@k^T and weights@v 2 * 2*B*NH*T*T*hs = 2 * 2*B*T*T*E; the output Linear 2*M*E*V.
// Backward multiplies twice per forward product (da = grad @ b^T, db = a^T @ grad; every operand
// needs its gradient, the first layer's input too, since the embeddings are trained), so a step
// is 3x the forward products. Bias adds, softmax etc. are not counted.
inline double matmul_flops(const Config& c) {
  const double B = c.batch, T = c.seq, E = c.d_model, F = c.ffn, V = c.vocab, M = B * T;
  const double layer = 4 * 2 * M * E * E + 2 * 2 * M * E * F + 2 * 2 * B * T * T * E;
  const double forward = c.layers * layer + 2 * M * E * V;
  return 3 * forward;
}


struct Args {
  Config config;
  int threads = 1;
  int steps = 20;
  int warmup = 3;
};

inline Args parse_args(int argc, char** argv, const char* program) {
  Args a;
  a.config = configs()[0];
  auto usage = [&] {
    std::fprintf(stderr, "usage: %s [--config toy|larger] [--threads N] [--steps N] [--warmup N]\n", program);
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage();
    const std::string value = argv[++i];
    if (arg == "--config") {
      auto it = std::find_if(configs().begin(), configs().end(), [&](const Config& c) { return c.name == value; });
      if (it == configs().end()) usage();
      a.config = *it;
    } else if (arg == "--threads") {
      a.threads = std::stoi(value);
    } else if (arg == "--steps") {
      a.steps = std::stoi(value);
    } else if (arg == "--warmup") {
      a.warmup = std::stoi(value);
    } else {
      usage();
    }
  }
  if (a.threads < 1 || a.steps < 1 || a.warmup < 0) usage();
  return a;
}

inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // ru_maxrss is in KiB on Linux
}

// CPU seconds of all the process's threads so far. On a machine shared with other work a step's
// CPU time (1 thread) varies much less than its wall time: time spent waiting for a core is not
// counted (threads spinning at OpenMP barriers are).
inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

inline const char* env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

// The 2-core FMA peak the GFLOP/s are compared with: PEAK_GFLOPS from the environment, what
// bench/fma_peak prints for this machine (bench/side_by_side.sh measures and sets it). Without
// it the share of peak is not known and the JSON line says null: no other machine's peak is
// this one's.
inline std::string pct_peak_json(double gflops) {
  const char* peak = std::getenv("PEAK_GFLOPS");
  const double peak_gflops = peak ? std::atof(peak) : 0;
  if (!(peak_gflops > 0)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", 100 * gflops / peak_gflops);
  return text;
}

// One JSON line on stdout: the script reads it, a person can too.
//   ms: per-step wall times (after the warm-up); cpu_ms: CPU time of all threads per step over the
//   same steps; loss0 / loss: the first and last step's loss
inline void print_result(const char* framework, const Args& a, std::vector<double> ms, double cpu_ms, double loss0,
                         double loss, const std::string& extra) {
  std::sort(ms.begin(), ms.end());
  const double median = ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  const double gflops = matmul_flops(a.config) / (median * 1e-3) * 1e-9;
  std::printf(
      "{\"framework\": \"%s\", \"config\": \"%s\", \"threads\": %d, \"steps\": %d, \"median_ms\": %.2f, "
      "\"min_ms\": %.2f, \"cpu_ms\": %.2f, \"matmul_gflop_per_step\": %.3f, \"gflops\": %.1f, \"pct_peak\": %s, "
      "\"peak_rss_mib\": %.1f, \"loss_first\": %.6f, \"loss_last\": %.6f, \"omp_wait_policy\": \"%s\", "
      "\"gomp_spincount\": \"%s\"%s}\n",
      framework, a.config.name.c_str(), a.threads, a.steps, median, ms.front(), cpu_ms, matmul_flops(a.config) * 1e-9,
      gflops, pct_peak_json(gflops).c_str(), peak_rss_mib(), loss0, loss, env_or("OMP_WAIT_POLICY", "default"),
      env_or("GOMP_SPINCOUNT", "default"), extra.c_str());
  std::fflush(stdout);
}

}  // namespace train_step_bench
