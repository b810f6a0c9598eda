#include "ops/matmul/gemm_cpu.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/matmul/gemm_kernels.h"

namespace tg {

// The loops, after Goto & van de Geijn ("Anatomy of high-performance matrix multiplication",
// 2008) and BLIS. For one batch element:
//
//   for jc in N, step nc:                 a (kc, nc) block of op(b) is packed: kept in L3
//     for pc in K, step kc:
//       pack op(b)[pc:pc+kc, jc:jc+nc] into nr-column panels            (b_block)
//       for ic in M, step mc:             an (mc, kc) block of op(a) is packed: kept in L2
//         pack op(a)[ic:ic+mc, pc:pc+kc] into mr-row panels             (a_block)
//         for jr in nc, step nr:          one b panel (kc, nr): kept in L1
//           for ir in mc, step mr:
//             c[ic+ir : +mr, jc+jr : +nr] (=, or += after the first pc) micro-kernel
//
// Packing reads op(x) through its transpose flag, so every layout runs the same kernel.
// Threads: while every thread can have a batch element of its own, each runs whole GEMMs
// alone; the remaining elements are shared: the team packs b_block together, then splits
// the ic blocks (and, when they are too few, the jr panels too).

namespace {

// Cache budgets of the blocks. This machine (AMD Zen 3) has 32 KiB L1d and 512 KiB L2 per
// core and a shared 32 MiB L3; most x86-64 cores of the last decade have at least that.
constexpr int64_t kL1Bytes = 16 << 10;   // one b panel (kc, nr), beside an a panel and the c tile
constexpr int64_t kL2Bytes = 192 << 10;  // the a block (mc, kc)
constexpr int64_t kL3Bytes = 2 << 20;    // the b block (kc, nc)
constexpr int64_t kParallelWork = 1 << 16;  // multiply-adds below which one thread does it all
constexpr int64_t kLineBytes = 64;
constexpr int64_t kPackStrip = 8;          // see pack_panels
constexpr int64_t kInPlaceMaxN = 512;       // see a_in_place in gemm_cpu
constexpr int64_t kInPlaceMaxNTrans = 32;
constexpr int kMaxTile = 96;                // mr * nr of every micro-kernel (f32 AVX2: 6 * 16)

std::atomic<bool> portable_forced{false};

int64_t ceil_div(int64_t x, int64_t y) { return (x + y - 1) / y; }
int64_t round_up(int64_t x, int64_t unit) { return ceil_div(x, unit) * unit; }

// The part size when n is cut into the fewest near-equal parts of at most max_part, rounded up
// to a multiple of unit (so K = 300 gives two blocks of 150, not 256 + 44).
int64_t part_size(int64_t n, int64_t max_part, int64_t unit) {
  return round_up(ceil_div(n, ceil_div(n, max_part)), unit);
}

bool use_avx2() {
  static const bool avx2 = cpu_has_avx2_fma();
  return avx2 && !portable_forced;
}

template <class T>
MicroKernel<T> micro_kernel() {
  return use_avx2() ? avx2_micro_kernel<T>() : portable_micro_kernel<T>();
}

// This thread's buffer number `slot`, grown to at least n elements, 64-byte aligned. Kept
// between calls (OpenMP's threads live on), so steady-state GEMMs allocate nothing.
template <class T>
T* workspace(int slot, int64_t n) {
  thread_local std::vector<T> buffers[2];
  std::vector<T>& buf = buffers[slot];
  const size_t pad = 64 / sizeof(T), need = static_cast<size_t>(n) + pad;
  if (buf.size() < need) buf.resize(need);
  void* p = buf.data();
  size_t space = buf.size() * sizeof(T);
  return static_cast<T*>(std::align(64, static_cast<size_t>(n) * sizeof(T), p, space));
}

// Packs x(r, k) = src[r*rs + k*ks], r in [0, len), k in [0, kc), into ceil(len/W) panels of
// (kc, W): panel q holds x(q*W + r, k) at [k*W + r], rows past len zero. Used for both
// operands: a block of op(a) is x(i, k), one of op(b) is x(j, k); one of rs, ks is usually 1.
template <class T, int W>
void pack_panels(T* dst, const T* src, int64_t rs, int64_t ks, int64_t len, int64_t kc) {
  const int64_t full = len / W * W;  // rows in whole panels; panel q (a multiple of W) at dst + q*kc
  if (rs == 1) {  // x's rows are contiguous for each k: read kPackStrip k at a time, across all panels
    for (int64_t k0 = 0; k0 < kc; k0 += kPackStrip) {
      const int64_t k1 = std::min(kc, k0 + kPackStrip);
      for (int64_t q = 0; q < full; q += W)
        for (int64_t k = k0; k < k1; ++k)
          std::memcpy(dst + q * kc + k * W, src + k * ks + q, W * sizeof(T));
    }
  } else {  // W rows read side by side along k
    for (int64_t q = 0; q < full; q += W)
      for (int64_t k = 0; k < kc; ++k)
        for (int r = 0; r < W; ++r) dst[q * kc + k * W + r] = src[(q + r) * rs + k * ks];
  }
  if (full == len) return;
  T* d = dst + full * kc;  // the last panel, part empty
  const T* s = src + full * rs;
  for (int64_t k = 0; k < kc; ++k)
    for (int r = 0; r < W; ++r) d[k * W + r] = full + r < len ? s[r * rs + k * ks] : T(0);
}

template <class T>
using PackFn = void (*)(T* dst, const T* src, int64_t rs, int64_t ks, int64_t len, int64_t kc);

// pack_panels for the panel widths of the micro-kernels.
template <class T>
PackFn<T> panel_packer(int width) {
  switch (width) {
    case 4: return pack_panels<T, 4>;
    case 6: return pack_panels<T, 6>;
    case 8: return pack_panels<T, 8>;
    case 16: return pack_panels<T, 16>;
    default: throw Error("matmul", "no packing for micro-kernel panels of width " + std::to_string(width));
  }
}

// What every batch element of one gemm_cpu call shares.
template <class T>
struct Plan {
  MicroKernel<T> kern;
  PackFn<T> pack_a, pack_b;  // panels of mr rows, of nr columns
  GemmMatrix<T> a, b;
  T* c;
  int64_t M, N, K;
  int64_t kc, nc, max_mc;  // block sizes (kc, nc exact part sizes; mc chosen per team size)
  bool a_in_place;         // the kernel reads op(a)'s rows where they are (a row-major): no a_block
};

// The rows [ic, ic + mc) x columns [pc, pc + kc) of op(a) as the micro-kernel reads them:
// in place (rows ld apart, a part-empty last row panel packed) or all packed in mr-row panels.
template <class T>
struct ABlock {
  const T* in_place;  // op(a)(ic, pc), or nullptr
  int64_t rs, ks;     // op(a)(i, k) at in_place[i*rs + k*ks]
  const T* packed;  // panels of (kc, mr): all of them, or only the last one when in place
};

// c (mc, nc) (rows ldc apart) = or += a (mc, kc) @ b_block (kc, nc), for the b panels
// [jr0, jr1) only. Edge tiles are computed whole into a local tile and their valid part copied.
template <class T>
void macro_kernel(const MicroKernel<T>& kern, T* c, int64_t ldc, const ABlock<T>& a, const T* b_block, int64_t mc,
                  int64_t nc, int64_t kc, int64_t jr0, int64_t jr1, bool accumulate) {
  alignas(64) T tile[kMaxTile];
  const int64_t mr = kern.mr, nr = kern.nr;
  for (int64_t jr = jr0; jr < jr1; ++jr) {
    const int64_t j = jr * nr, n = std::min(nr, nc - j);
    const T* b_panel = b_block + j * kc;
    for (int64_t i = 0; i < mc; i += mr) {
      const int64_t m = std::min(mr, mc - i);
      const bool in_place = a.in_place && m == mr;
      const T* a_tile = in_place ? a.in_place + i * a.rs : a.packed + (a.in_place ? 0 : i * kc);
      const int64_t a_rs = in_place ? a.rs : 1, a_ks = in_place ? a.ks : mr;
      T* cij = c + i * ldc + j;
      if (a.in_place && a.ks == 1 && jr == jr0 && i + 2 * mr <= mc)  // the next tile's rows: no hardware prefetcher guesses them
        for (int64_t r = mr; r < 2 * mr; ++r)
          for (int64_t k = 0; k < kc; k += kLineBytes / int64_t(sizeof(T))) __builtin_prefetch(a_tile + r * a.rs + k);
      if (m == mr && n == nr) {
        kern.run(kc, a_tile, a_rs, a_ks, b_panel, cij, ldc, accumulate);
        continue;
      }
      kern.run(kc, a_tile, a_rs, a_ks, b_panel, tile, nr, false);
      for (int64_t r = 0; r < m; ++r)
        for (int64_t q = 0; q < n; ++q)
          cij[r * ldc + q] = accumulate ? cij[r * ldc + q] + tile[r * nr + q] : tile[r * nr + q];
    }
  }
}

// c[p] = op(a[p]) @ op(b[p]), run by thread `tid` of `threads` that call it together (or by
// one thread alone: threads == 1). b_block is shared by those threads, a_block is this one's.
template <class T>
void gemm_one(const Plan<T>& g, int64_t p, int tid, int threads, T* a_block, T* b_block) {
  const int mr = g.kern.mr, nr = g.kern.nr;
  const T* ap = g.a.data + g.a.offsets[p];
  const T* bp = g.b.data + g.b.offsets[p];
  T* cp = g.c + p * g.M * g.N;
  // op(a)(i, k) = ap[i*a_rs + k*a_ks], op(b)(k, j) = bp[j*b_rs + k*b_ks]
  const int64_t a_rs = g.a.trans ? 1 : g.a.ld, a_ks = g.a.trans ? g.a.ld : 1;
  const int64_t b_rs = g.b.trans ? g.b.ld : 1, b_ks = g.b.trans ? 1 : g.b.ld;
  // As many row blocks as a multiple of the team where M allows; else each is split by columns too.
  const int64_t mc = round_up(ceil_div(g.M, round_up(ceil_div(g.M, g.max_mc), threads)), mr);
  const int64_t row_blocks = ceil_div(g.M, mc);
  const int64_t col_splits = row_blocks % threads == 0 ? 1 : threads;
  for (int64_t jc = 0; jc < g.N; jc += g.nc) {
    const int64_t nc = std::min(g.nc, g.N - jc), panels = ceil_div(nc, nr);
    for (int64_t pc = 0; pc < g.K; pc += g.kc) {
      const int64_t kc = std::min(g.kc, g.K - pc);
      const int64_t j0 = panels * tid / threads * nr, j1 = std::min(nc, panels * (tid + 1) / threads * nr);
      if (j0 < j1) g.pack_b(b_block + j0 * kc, bp + (jc + j0) * b_rs + pc * b_ks, b_rs, b_ks, j1 - j0, kc);
      if (threads > 1) {
#pragma omp barrier
      }
      for (int64_t task = tid; task < row_blocks * col_splits; task += threads) {
        const int64_t ic = task / col_splits * mc, split = task % col_splits, m = std::min(mc, g.M - ic);
        const T* a_start = ap + ic * a_rs + pc * a_ks;
        if (g.a_in_place) {  // pack only a part-empty last row panel
          const int64_t full = m / mr * mr;
          if (full < m) g.pack_a(a_block, a_start + full * a_rs, a_rs, a_ks, m - full, kc);
        } else {
          g.pack_a(a_block, a_start, a_rs, a_ks, m, kc);
        }
        const ABlock<T> a{g.a_in_place ? a_start : nullptr, a_rs, a_ks, a_block};
        macro_kernel(g.kern, cp + ic * g.N + jc, g.N, a, b_block, m, nc, kc, panels * split / col_splits,
                     panels * (split + 1) / col_splits, pc > 0);
      }
      if (threads > 1) {
#pragma omp barrier
      }
    }
  }
}

}  // namespace

template <class T>
void gemm_cpu(T* c, const GemmMatrix<T>& a, const GemmMatrix<T>& b, int64_t batch, int64_t M, int64_t N,
              int64_t K) {
  if (batch == 0 || M == 0 || N == 0) return;
  if (K == 0) return std::fill(c, c + batch * M * N, T(0));
  const MicroKernel<T> kern = micro_kernel<T>();
  const int64_t elem = sizeof(T), max_kc = kL1Bytes / (kern.nr * elem);
  const int64_t kc = part_size(K, max_kc, 1);
  const int64_t nc = part_size(N, std::max<int64_t>(kL3Bytes / (kc * elem), kern.nr), kern.nr);
  const int64_t max_mc = std::max<int64_t>(kL2Bytes / (kc * elem) / kern.mr, 1) * kern.mr;
  // The rows of a row-major a are read in place when op(b) is narrow: packing them would cost
  // as much as a good share of the products each packed value takes part in.
  const bool a_in_place = N <= (a.trans ? kInPlaceMaxNTrans : kInPlaceMaxN);
  const Plan<T> plan{kern, panel_packer<T>(kern.mr), panel_packer<T>(kern.nr), a, b, c, M, N, K, kc, nc, max_mc,
                     a_in_place};
  const int threads = batch * M * N * K >= kParallelWork ? omp_get_max_threads() : 1;
  T* b_shared = workspace<T>(0, kc * nc);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int tid = omp_get_thread_num(), team = omp_get_num_threads();
    T* a_block = workspace<T>(1, max_mc * kc);
    T* b_own = tid == 0 ? b_shared : workspace<T>(0, kc * nc);
    // Whole batch elements per thread while each thread gets one, then the rest together.
    const int64_t alone = batch / team * team;
    for (int64_t p = tid; p < alone; p += team) gemm_one(plan, p, 0, 1, a_block, b_own);
    if (alone > 0 && alone < batch) {
#pragma omp barrier
    }
    for (int64_t p = alone; p < batch; ++p) gemm_one(plan, p, tid, team, a_block, b_shared);
  }
}

template void gemm_cpu<float>(float*, const GemmMatrix<float>&, const GemmMatrix<float>&, int64_t, int64_t,
                              int64_t, int64_t);
template void gemm_cpu<double>(double*, const GemmMatrix<double>&, const GemmMatrix<double>&, int64_t, int64_t,
                               int64_t, int64_t);

void gemm_cpu_force_portable(bool portable) { portable_forced = portable; }

const char* gemm_cpu_kernel_name() {
  return use_avx2() ? "avx2" : "portable";
}

}  // namespace tg
