// gemm_bench: GFLOP/s of tapegrad's CPU GEMM (gemm_cpu, f32) on square matrices and on the
// shapes a small Transformer's forward and backward passes multiply, on 1 and 2 threads; with
// OpenBLAS (found at configure time) the same shapes through cblas_sgemm, and the ratio.
//
//   gemm_bench [--kernel avx512|avx2|portable] [--tile RxC[/KIB] | --tune] [--cpu-time] [--threads N]...
//
// --tile runs every product with that tile of the family (ops/matmul/gemm_tuning.h: 12x32, 8x32,
// 8x48, 6x64 for AVX-512), and an a block of KIB KiB (default 192); --tune times the family's
// tiles and a blocks on each case first, as a tuned training run does at a product's first use,
// and runs the case with the fastest (column "tile").
//
// --cpu-time times by the process's CPU time divided by the thread count instead of the
// wall clock: the speed the threads would have on cores of their own, for a machine shared
// with other work (time spent waiting for a core is not counted; spinning threads are).
//
// Each sample times enough repetitions to last >= 20 ms; the table gives the median of 9
// samples and the ratio of the medians, then the ratio of the best samples (less sensitive to
// other work on the machine). Build with optimisation (the release preset). Its OpenMP threads
// wait as every tapegrad program's do: a short spin, then sleep (core/openmp_wait.cpp).
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ops/matmul/gemm_cpu.h"
#include "ops/matmul/gemm_tuning.h"

#ifdef TAPEGRAD_BENCH_OPENBLAS
#include <cblas.h>
#endif

namespace {

struct Case {
  std::string what;  // where the product comes from
  int64_t batch, M, N, K;
  bool ta, tb;  // op(a) = a^T, op(b) = b^T
};

// A Linear layer on (M, in) rows with out features: y (M,out) = x (M,in) @ W^T, W (out,in) as
// PyTorch stores it, and (all_layouts) the same layer with W stored (in,out).
void add_linear(std::vector<Case>& cases, const std::string& name, int64_t M, int64_t in, int64_t out,
                bool all_layouts = true) {
  cases.push_back({name + " fwd y=x@W^T", 1, M, out, in, false, true});
  cases.push_back({name + " bwd dx=dy@W", 1, M, in, out, false, false});
  cases.push_back({name + " bwd dW=dy^T@x", 1, out, in, M, true, false});
  if (!all_layouts) return;
  cases.push_back({name + " fwd y=x@W", 1, M, out, in, false, false});
  cases.push_back({name + " bwd dx=dy@W^T", 1, M, in, out, false, true});
  cases.push_back({name + " bwd dW=x^T@dy", 1, in, out, M, true, false});
}

std::vector<Case> bench_cases() {
  std::vector<Case> cases;
  for (int64_t n : {256, 512, 1024}) cases.push_back({fmt::format("square {}", n), 1, n, n, n, false, false});
  cases.push_back({"square 1024 a^T b^T", 1, 1024, 1024, 1024, true, true});
  // B=16, T=128 (M = B*T = 2048 rows), C=128, 4 heads of hs=32, hidden 4C.
  add_linear(cases, "qkv C->3C", 2048, 128, 384);
  add_linear(cases, "proj C->C", 2048, 128, 128);
  add_linear(cases, "ffn1 C->4C", 2048, 128, 512);
  add_linear(cases, "ffn2 4C->C", 2048, 512, 128);
  // The larger config's (C=256, hidden 4C) in tapegrad's own layout: the products of its steps.
  add_linear(cases, "C256 proj", 2048, 256, 256, false);
  add_linear(cases, "C256 ffn1", 2048, 256, 1024, false);
  add_linear(cases, "C256 ffn2", 2048, 1024, 256, false);
  // Issue 31's character GPT (nanoGPT's "baby GPT": batch 12 x block 64 = 768 rows, C=128).
  add_linear(cases, "gpt qkv", 768, 128, 384, false);
  add_linear(cases, "gpt proj", 768, 128, 128, false);
  add_linear(cases, "gpt ffn1", 768, 128, 512, false);
  add_linear(cases, "gpt ffn2", 768, 512, 128, false);
  // Attention over B*NH = 64 (T,hs) heads: q@k^T and datt = dout@v^T; att@v and dq = datt@k;
  // dv = att^T@dout and dk = datt^T@q.
  cases.push_back({"attn q@k^T", 64, 128, 128, 32, false, true});
  cases.push_back({"attn att@v", 64, 128, 32, 128, false, false});
  cases.push_back({"attn att^T@dout", 64, 128, 32, 128, true, false});
  return cases;
}

// Operands of one case, row-major, stored as op() says: a (M,K) or (K,M), b (K,N) or (N,K).
struct Operands {
  std::vector<float> a, b, c, c_ref;
  std::vector<int64_t> a_off, b_off;
  int64_t lda, ldb;
};

Operands make_operands(const Case& cs) {
  Operands o;
  uint64_t state = 12345;
  auto next = [&] {  // values in [-1, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(static_cast<double>(state >> 11) / 4503599627370496.0 - 1.0);
  };
  o.a.resize(cs.batch * cs.M * cs.K);
  o.b.resize(cs.batch * cs.K * cs.N);
  std::generate(o.a.begin(), o.a.end(), next);
  std::generate(o.b.begin(), o.b.end(), next);
  o.c.assign(cs.batch * cs.M * cs.N, 0.f);
  o.c_ref = o.c;
  for (int64_t p = 0; p < cs.batch; ++p) {
    o.a_off.push_back(p * cs.M * cs.K);
    o.b_off.push_back(p * cs.K * cs.N);
  }
  o.lda = cs.ta ? cs.M : cs.K;
  o.ldb = cs.tb ? cs.K : cs.N;
  return o;
}

struct Rate {
  double median, best;  // GFLOP/s over 9 samples
};

// Seconds by the wall clock, or CPU seconds of all threads divided by `threads` (--cpu-time).
struct Timer {
  bool cpu_time;
  int threads;
  double now() const {
    if (!cpu_time) return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (t.tv_sec + 1e-9 * t.tv_nsec) / threads;
  }
};

template <class Fn>
Rate measure(const Case& cs, const Timer& timer, Fn&& run) {
  const double flops = 2.0 * cs.batch * cs.M * cs.N * cs.K;
  run();  // warm up: caches, buffers, thread pools
  int reps = 1;
  for (;;) {  // enough repetitions for one sample to last 20 ms
    const double t0 = timer.now();
    for (int r = 0; r < reps; ++r) run();
    if (timer.now() - t0 >= 0.02) break;
    reps *= 2;
  }
  std::vector<double> gflops;
  for (int s = 0; s < 9; ++s) {
    const double t0 = timer.now();
    for (int r = 0; r < reps; ++r) run();
    gflops.push_back(flops * reps / (timer.now() - t0) * 1e-9);
  }
  std::sort(gflops.begin(), gflops.end());
  return {gflops[4], gflops.back()};
}

void run_tapegrad(const Case& cs, Operands& o) {
  tg::gemm_cpu<float>(o.c.data(), {o.a.data(), o.a_off.data(), o.lda, cs.ta},
                      {o.b.data(), o.b_off.data(), o.ldb, cs.tb}, cs.batch, cs.M, cs.N, cs.K);
}

#ifdef TAPEGRAD_BENCH_OPENBLAS
// One cblas_sgemm per batch element; a batch is split over OpenMP threads, each calling a
// single-threaded OpenBLAS (its best use for many small products).
void run_openblas(const Case& cs, Operands& o, int threads) {
  auto one = [&](int64_t p) {
    cblas_sgemm(CblasRowMajor, cs.ta ? CblasTrans : CblasNoTrans, cs.tb ? CblasTrans : CblasNoTrans, cs.M, cs.N,
                cs.K, 1.f, o.a.data() + o.a_off[p], o.lda, o.b.data() + o.b_off[p], o.ldb, 0.f,
                o.c_ref.data() + p * cs.M * cs.N, cs.N);
  };
  if (cs.batch == 1) return one(0);
  openblas_set_num_threads(1);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t p = 0; p < cs.batch; ++p) one(p);
  openblas_set_num_threads(threads);
}
#endif

// The tile --tune chose for the case on `threads` threads (timed at its first case of that shape).
std::string tuned_tile(const std::vector<tg::GemmTuningEntry>& tuned, const Case& cs, int threads) {
  const tg::GemmShape shape{false, cs.batch, cs.M, cs.N, cs.K, cs.ta, cs.tb, threads};
  for (const tg::GemmTuningEntry& e : tuned)
    if (e.shape == shape) return e.tile.name();
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> thread_counts;
  bool cpu_time = false, tune = false;
  std::vector<tg::GemmTuningEntry> tuned;  // every tile --tune chose
  try {  // a kernel or tile this CPU lacks, or a count that is not a number: the message, not an abort
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--kernel" && i + 1 < argc) {
        tg::gemm_cpu_force_kernel(argv[++i]);
      } else if (arg == "--tile" && i + 1 < argc) {
        tg::GemmTile tile;  // RxC, or RxC/KIB with another a block
        if (std::sscanf(argv[++i], "%dx%d/%d", &tile.mr, &tile.nr, &tile.a_kib) < 2) tile.mr = -1;
        tg::gemm_force_tile(tile, false);
      } else if (arg == "--tune") {
        tune = true;
        tg::gemm_tuning_start({});  // kept in memory only
      } else if (arg == "--cpu-time") {
        cpu_time = true;
      } else if (arg == "--threads" && i + 1 < argc) {
        const std::string count = argv[++i];
        int threads = 0;
        const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), threads);
        if (ec != std::errc() || end != count.data() + count.size() || threads < 1)
          throw std::invalid_argument("--threads takes a count of at least 1, got \"" + count + "\"");
        thread_counts.push_back(threads);
      } else {
        fmt::print(stderr, "usage: {} [--kernel avx512|avx2|portable] [--tile RxC[/KIB] | --tune] [--cpu-time] "
                           "[--threads N]...\n", argv[0]);
        return 2;
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", argv[0], e.what());
    return 2;
  }
  if (thread_counts.empty()) thread_counts = {1, 2};
#ifndef __OPTIMIZE__
  fmt::print("warning: built without optimisation; these numbers mean little\n");
#endif
  fmt::print("tapegrad gemm_cpu ({} kernel), f32, GFLOP/s = 2*batch*M*N*K / time ({}), median of 9 samples\n",
             tg::gemm_cpu_kernel_name(), cpu_time ? "process CPU time / threads" : "wall clock");
#ifdef TAPEGRAD_BENCH_OPENBLAS
  // OPENBLAS_CORETYPE overrides OpenBLAS's own choice of kernels: say which ran.
  fmt::print("OpenBLAS: {} kernels\n", openblas_get_corename());
#endif
  fmt::print("{:<24} {:>5} {:>5} {:>5} {:>5} {:>3} {:>3} {:>9} {:>9} {:>6} {:>6} {:>8} {:>5}\n", "case", "batch", "M",
             "N", "K", "op", "thr", "tapegrad", "OpenBLAS", "ratio", "best", "maxdiff", "tile");
  for (int threads : thread_counts) {
    omp_set_num_threads(threads);
#ifdef TAPEGRAD_BENCH_OPENBLAS
    openblas_set_num_threads(threads);
#endif
    const Timer timer{cpu_time, threads};
    for (const Case& cs : bench_cases()) {
      Operands o = make_operands(cs);
      std::string tile = "-";
      if (tune) {
        run_tapegrad(cs, o);
        const tg::GemmTuningReport report = tg::gemm_tune_pending();
        tuned.insert(tuned.end(), report.chosen.begin(), report.chosen.end());
        tile = tuned_tile(tuned, cs, threads);
      }
      const Rate ours = measure(cs, timer, [&] { run_tapegrad(cs, o); });
      std::string theirs = "-", ratio = "-", best_ratio = "-", diff = "-";
#ifdef TAPEGRAD_BENCH_OPENBLAS
      const Rate blas = measure(cs, timer, [&] { run_openblas(cs, o, threads); });
      double worst = 0;
      for (size_t i = 0; i < o.c.size(); ++i) worst = std::max(worst, double(std::fabs(o.c[i] - o.c_ref[i])));
      theirs = fmt::format("{:.1f}", blas.median);
      ratio = fmt::format("{:.2f}", ours.median / blas.median);
      best_ratio = fmt::format("{:.2f}", ours.best / blas.best);
      diff = fmt::format("{:.1e}", worst);
      // Let OpenBLAS's worker threads stop spinning before our threads run again.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
#endif
      const std::string op = std::string(cs.ta ? "T" : "N") + (cs.tb ? "T" : "N");
      fmt::print("{:<24} {:>5} {:>5} {:>5} {:>5} {:>3} {:>3} {:>9.1f} {:>9} {:>6} {:>6} {:>8} {:>5}\n", cs.what,
                 cs.batch, cs.M, cs.N, cs.K, op, threads, ours.median, theirs, ratio, best_ratio, diff, tile);
      std::fflush(stdout);
    }
  }
}
