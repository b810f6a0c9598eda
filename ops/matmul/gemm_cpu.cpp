#include "ops/matmul/gemm_cpu.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "ops/matmul/gemm_kernels.h"
#include "ops/matmul/gemm_pack.h"
#include "ops/matmul/gemm_tuning.h"
#include "ops/relu/relu_math.h"

namespace tg {

// The loops of one thread, after Goto & van de Geijn ("Anatomy of high-performance matrix
// multiplication", 2008) and BLIS:
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
// Packing reads op(x) through its transpose flag, so every layout runs the same kernel. A
// row-major a is not packed when op(b) is narrow: the kernel reads its rows in place.
//
// Threads never wait for each other inside a product (a barrier costs a whole time slice when
// the machine has more work than cores): batch elements go whole to whichever thread is free,
// and each of the remaining products is cut into parts (rows, columns, or depth with the partial
// sums added at the end), each thread packing what its part needs: first its own share of the
// parts (those over the rows it holds in its cache), then the others' as they become free.

namespace {

// Cache budgets of the blocks (the a block's, mc x kc, is the tile's: GemmTile::a_kib). The
// machines they were set on have 32 KiB L1d and 512 KiB L2 per core (AMD Zen 3) or 48 KiB and
// 2 MiB (Intel Sapphire Rapids); most x86-64 cores of the last decade have at least the first.
constexpr int64_t kMaxKc = 256;             // depth of a block: one packed b panel (kc, nr), 16 KiB for
                                            // AVX2 f32, 32 KiB for AVX-512 f32, stays in L1
constexpr int64_t kL3Bytes = 2 << 20;       // the b block (kc, nc)
constexpr int64_t kLineBytes = 64;          // cache line
constexpr int64_t kParallelWork = 1 << 16;  // multiply-adds below which one thread does it all
constexpr int64_t kInPlaceMaxN = 256;       // a is read in place up to this N (row- or column-major)
constexpr int64_t kSplitInPlaceMaxNT = 32;  // choose_split's estimate of it for a column-major a
constexpr double kCopyCost = 8;             // multiply-adds that packing or summing one element costs, about,
constexpr double kReadCost = 4;             // and reading one in place
constexpr double kPartCost = 1 << 15;       // multiply-adds that handing a part to a thread costs, about
constexpr int kMaxTile = 384;               // mr * nr of every micro-kernel (f32 AVX-512: 12 * 32)
constexpr int kMaxNr = 64;                  // nr of every micro-kernel

int64_t ceil_div(int64_t x, int64_t y) { return (x + y - 1) / y; }
int64_t round_up(int64_t x, int64_t unit) { return ceil_div(x, unit) * unit; }

// The part size when n is cut into the fewest near-equal parts of at most max_part, rounded up
// to a multiple of unit (so K = 300 gives two blocks of 150, not 256 + 44).
int64_t part_size(int64_t n, int64_t max_part, int64_t unit) {
  return round_up(ceil_div(n, ceil_div(n, max_part)), unit);
}

// row[0..n) = (or +=) bias[0..n), or zeros without a bias, then relu where relu: c where K = 0.
template <class T>
void fill_row(T* row, const T* bias, int64_t n, bool accumulate, bool relu) {
  for (int64_t j = 0; j < n; ++j) {
    const T value = bias ? bias[j] : T(0), out = accumulate ? row[j] + value : value;
    row[j] = relu ? relu_math::forward(out) : out;
  }
}

// The families of micro-kernels, best first; the index of the one gemm_cpu_force_kernel chose, or -1.
enum class Kernel { avx512, avx2, portable };
constexpr Kernel kKernels[] = {Kernel::avx512, Kernel::avx2, Kernel::portable};
constexpr const char* kKernelNames[] = {"avx512", "avx2", "portable"};
std::atomic<int> forced_kernel{-1};

bool cpu_runs(Kernel k) {
  switch (k) {
    case Kernel::avx512: return cpu_has_avx512f();
    case Kernel::avx2: return cpu_has_avx2_fma();
    case Kernel::portable: return true;
  }
  return false;
}

Kernel current_kernel() {  // the CPU probe runs at the first call, not in a static initializer
  static const Kernel best = *std::find_if(std::begin(kKernels), std::end(kKernels), cpu_runs);  // portable: always
  const int forced = forced_kernel;
  return forced < 0 ? best : static_cast<Kernel>(forced);
}

template <class T>
std::span<const MicroKernel<T>> micro_kernels(Kernel k) {
  switch (k) {
    case Kernel::avx512: return avx512_micro_kernels<T>();
    case Kernel::avx2: return avx2_micro_kernels<T>();
    case Kernel::portable: break;
  }
  return portable_micro_kernels<T>();
}

// This thread's buffer number `slot`, grown to at least n elements, 64-byte aligned. Kept
// between calls (OpenMP's threads live on), so steady-state GEMMs allocate nothing.
enum Slot { kSlotA, kSlotB, kSlotProduct, kSlotPartial, kSlots = kSlotPartial + kGemmMaxGroup };  // partial: + product
template <class T>
T* workspace(Slot slot, int64_t n) {
  thread_local std::vector<T> buffers[kSlots];
  std::vector<T>& buf = buffers[slot];
  const size_t pad = 64 / sizeof(T), need = static_cast<size_t>(n) + pad;
  if (buf.size() < need) buf.resize(need);
  void* p = buf.data();
  size_t space = buf.size() * sizeof(T);
  return static_cast<T*>(std::align(64, static_cast<size_t>(n) * sizeof(T), p, space));
}

// The tile choose_split estimates parts with: AVX-512's default (12 rows x two 64-byte vectors),
// on every family, so that no machine's split differs from another's.
constexpr int kSplitMr = 12;
template <class T>
constexpr int kSplitNr = 128 / int(sizeof(T));

// What every product of one gemm_cpu call shares.
template <class T>
struct Plan {
  MicroKernel<T> kern;             // the tile gemm_tuning.h chose
  int64_t a_block_bytes;           // the a block's budget (mc x kc), the tile's
  PackFn<T> pack_a, pack_b;        // into panels of mr rows, of nr columns
  int64_t a_rs, a_ks, b_rs, b_ks;  // op(a)(i, k) at a[i*a_rs + k*a_ks], op(b)(k, j) at b[j*b_rs + k*b_ks]
  bool a_trans;
  int64_t a_block_size, b_block_size;  // elements of the packing buffers
  bool relu;                           // c = relu(c) once its sums are complete (GemmActivation::relu)
};

template <class T>
Plan<T> make_plan(const GemmMatrix<T>& a, const GemmMatrix<T>& b, int64_t batch, int64_t M, int64_t N, int64_t K,
                  int threads, bool relu = false) {
  const std::span<const MicroKernel<T>> kernels = micro_kernels<T>(current_kernel());
  const GemmTile tile = gemm_tile_for({std::is_same_v<T, double>, batch, M, N, K, a.trans, b.trans, threads});
  const auto chosen = std::find_if(kernels.begin(), kernels.end(), [&](const MicroKernel<T>& k) {
    return k.mr == tile.mr && k.nr == tile.nr;
  });
  const MicroKernel<T> kern = chosen == kernels.end() ? kernels[0] : *chosen;
  const int64_t a_block_bytes = int64_t(tile.a_kib) << 10;
  return {kern,
          a_block_bytes,
          panel_packer<T>(kern.mr),
          panel_packer<T>(kern.nr),
          a.trans ? 1 : a.ld,
          a.trans ? a.ld : 1,
          b.trans ? b.ld : 1,
          b.trans ? 1 : b.ld,
          a.trans,
          std::max<int64_t>(a_block_bytes / int64_t(sizeof(T)), kern.mr * kMaxKc),
          kL3Bytes / int64_t(sizeof(T)) + kern.nr * kMaxKc,
          relu};
}

// Whether the kernel reads op(a) in place for a product n columns wide: packing a costs about
// as much as a good share of the n multiply-adds each packed value takes part in. A column-major
// a (dW = dy^T @ x) too: a tile's rows at one k are side by side, and the kernel's loads of them
// at k, k + 1, ... step through memory at a fixed stride.
bool a_in_place(int64_t n) { return n <= kInPlaceMaxN; }

// choose_split's estimate of the same: in place up to kInPlaceMaxN columns for a row-major a, up
// to kSplitInPlaceMaxNT for a column-major one, whichever way the kernel reads it. The split
// decides the order of a depth split's sums, so its estimate stays fixed: a faster way of reading
// a must not change a run's bits.
bool split_reads_a_in_place(bool a_trans, int64_t n) {
  return n <= (a_trans ? kSplitInPlaceMaxNT : kInPlaceMaxN);
}

// The rows [ic, ic + mc) x columns [pc, pc + kc) of op(a) as the micro-kernel reads them:
// in place (a part-empty last row panel packed) or all packed in mr-row panels.
template <class T>
struct ABlock {
  const T* in_place;  // op(a)(ic, pc), or nullptr
  int64_t rs, ks;     // op(a)(i, k) at in_place[i*rs + k*ks]
  const T* packed;    // panels of (kc, mr): all of them, or only the last one when in place
};

// c (mc, nc) (rows ldc apart) = or += a (mc, kc) @ b_block (kc, nc) (+ bias (nc) on every row,
// where bias != nullptr), then c = relu(c) where relu (the last block of k). Edge tiles are
// computed whole into a local tile and their valid part copied.
template <class T>
void macro_kernel(const MicroKernel<T>& kern, T* c, int64_t ldc, const ABlock<T>& a, const T* b_block,
                  const T* bias, int64_t mc, int64_t nc, int64_t kc, bool accumulate, bool relu) {
  alignas(64) T tile[kMaxTile];
  T edge_bias[kMaxNr];  // the bias of a part-empty last column panel, padded with zeros
  const int64_t mr = kern.mr, nr = kern.nr;
  for (int64_t j = 0; j < nc; j += nr) {
    const int64_t n = std::min(nr, nc - j);
    const T* b_panel = b_block + j * kc;
    const T* panel_bias = bias ? bias + j : nullptr;
    if (bias && n < nr) {
      std::fill(std::copy(bias + j, bias + j + n, edge_bias), edge_bias + nr, T(0));
      panel_bias = edge_bias;
    }
    for (int64_t i = 0; i < mc; i += mr) {
      const int64_t m = std::min(mr, mc - i);
      const bool in_place = a.in_place && m == mr;
      const T* a_tile = in_place ? a.in_place + i * a.rs : a.packed + (a.in_place ? 0 : i * kc);
      const int64_t a_rs = in_place ? a.rs : 1, a_ks = in_place ? a.ks : mr;
      if (a.in_place && a.ks == 1 && j == 0 && i + 2 * mr <= mc)  // the next tile's rows: no hardware
        for (int64_t r = mr; r < 2 * mr; ++r)                      // prefetcher guesses them
          for (int64_t k = 0; k < kc; k += kLineBytes / int64_t(sizeof(T))) __builtin_prefetch(a_tile + r * a.rs + k);
      T* cij = c + i * ldc + j;
      if (m == mr && n == nr) {
        kern.run(kc, a_tile, a_rs, a_ks, b_panel, panel_bias, cij, ldc, accumulate, relu);
        continue;
      }
      kern.run(kc, a_tile, a_rs, a_ks, b_panel, panel_bias, tile, nr, false, false);
      for (int64_t r = 0; r < m; ++r)
        for (int64_t q = 0; q < n; ++q)
          cij[r * ldc + q] = accumulate ? cij[r * ldc + q] + tile[r * nr + q] : tile[r * nr + q];
      if (relu)  // a pass of its own, so that the copy above stays as it is without relu
        for (int64_t r = 0; r < m; ++r)
          for (int64_t q = 0; q < n; ++q) cij[r * ldc + q] = relu_math::forward(cij[r * ldc + q]);
    }
  }
}

// c (m,n) (rows ldc apart) = (or +=) op(a) (m,k) @ op(b) (k,n) (+ bias (n) on every row, where
// bias != nullptr) (then relu where g.relu, never with accumulate) on this thread, a, b and bias
// pointing at the part's first elements (op(a)(0,0), op(b)(0,0), bias[0]). The loops at the top
// of this file. Accumulating over one block of k, the micro-kernel adds its finished sums to c;
// over several, the whole product is made first.
template <class T>
void gemm_serial(const Plan<T>& g, const T* a, const T* b, const T* bias, T* c, int64_t ldc, int64_t m, int64_t n,
                 int64_t k, bool accumulate) {
  if (accumulate && k > kMaxKc) {
    T* product = workspace<T>(kSlotProduct, m * n);
    gemm_serial(g, a, b, bias, product, n, m, n, k, false);
    for (int64_t i = 0; i < m; ++i)
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] += product[i * n + j];
    return;
  }
  const int64_t mr = g.kern.mr, nr = g.kern.nr, elem = sizeof(T);
  T* a_block = workspace<T>(kSlotA, g.a_block_size);
  T* b_block = workspace<T>(kSlotB, g.b_block_size);
  const int64_t kc = part_size(k, kMaxKc, 1);
  const int64_t nc = part_size(n, std::max(kL3Bytes / (kc * elem), nr), nr);
  const int64_t mc = part_size(m, std::max<int64_t>(g.a_block_bytes / (kc * elem) / mr, 1) * mr, mr);
  const bool in_place = a_in_place(n);
  for (int64_t jc = 0; jc < n; jc += nc) {
    const int64_t nb = std::min(nc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kc) {
      const int64_t kb = std::min(kc, k - pc);
      g.pack_b(b_block, b + jc * g.b_rs + pc * g.b_ks, g.b_rs, g.b_ks, nb, kb);
      for (int64_t ic = 0; ic < m; ic += mc) {
        const int64_t mb = std::min(mc, m - ic), full = mb / mr * mr;
        const T* a_start = a + ic * g.a_rs + pc * g.a_ks;
        if (!in_place)
          g.pack_a(a_block, a_start, g.a_rs, g.a_ks, mb, kb);
        else if (full < mb)  // only the part-empty last row panel
          g.pack_a(a_block, a_start + full * g.a_rs, g.a_rs, g.a_ks, mb - full, kb);
        const ABlock<T> a_view{in_place ? a_start : nullptr, g.a_rs, g.a_ks, a_block};
        macro_kernel(g.kern, c + ic * ldc + jc, ldc, a_view, b_block, pc == 0 && bias ? bias + jc : nullptr, mb,
                     nb, kb, pc > 0 || accumulate, g.relu && pc + kb == k);
      }
    }
  }
}

// How the threads share one product: they take (PartQueues) the parts of a grid of rows x cols
// parts of c, or the `depth` parts of the sum over k (partial products, added together at the
// end).
struct Split {
  int rows = 1, cols = 1, depth = 1;
};

// The split with the least estimated time on `threads` threads: the work of all parts shared
// evenly, plus half a part for the thread that finishes last (smaller parts balance better when
// a thread is held up), plus summing the partial products of a depth split. A part's work is
// its multiply-adds (whole micro tiles), packing its block of op(b), packing or reading its
// block of op(a), and a fixed cost of handing it out. The tiles are one fixed shape (kSplitMr x
// kSplitNr), so that the depth split, and with it the order of the sums, is the same whichever
// tile and family run: an AVX2 machine gives an AVX-512 one's bits.
template <class T>
Split choose_split(const Plan<T>& g, int64_t M, int64_t N, int64_t K, int threads) {
  auto cost = [&](const Split& s) {
    const double m = round_up(ceil_div(M, s.rows), kSplitMr), n = round_up(ceil_div(N, s.cols), kSplitNr<T>);
    const double k = ceil_div(K, s.depth);
    const double a_cost = split_reads_a_in_place(g.a_trans, static_cast<int64_t>(n)) ? kReadCost : kCopyCost;
    const double part = m * n * k + kCopyCost * k * n + kPartCost + a_cost * m * k;
    const double sums = kCopyCost * double(M) * N * (s.depth - 1);  // on one thread, after the parts
    return part * s.rows * s.cols * s.depth / threads + part / 2 + sums;
  };
  Split best{1, 1, threads};
  for (int parts : {threads, 2 * threads}) {
    if (cost({1, 1, parts}) < cost(best)) best = {1, 1, parts};
    for (int rows = 1; rows <= parts; ++rows)
      if (parts % rows == 0 && cost({rows, parts / rows, 1}) < cost(best)) best = {rows, parts / rows, 1};
  }
  return best;
}

// One product c (M,N) = (or +=) op(a) (M,K) @ op(b) (K,N) (+ bias) (then relu) shared by a team
// of threads: its split into parts, and the buffer of a depth split's partial products (which,
// accumulating, are summed as when written and that sum added to c; relu applies to the sum).
template <class T>
struct TeamProduct {
  Plan<T> g;
  const T *a, *b, *bias;
  T* c;
  int64_t M, N, K;
  bool accumulate, relu;
  Split s;
  int64_t ms, ns, ks, parts;
  bool split_sum, first_apart;  // depth part 0 not written into c where first_apart
  T *partial, *first;           // part d at partial + (d-1)*M*N; part 0, where apart, after them

  TeamProduct() = default;
  TeamProduct(const Plan<T>& plan, const T* a_, const T* b_, const T* bias_, T* c_, int64_t M_, int64_t N_,
              int64_t K_, int threads, bool accumulate_, Slot partial_slot)
      : g(plan), a(a_), b(b_), bias(bias_), c(c_), M(M_), N(N_), K(K_), accumulate(accumulate_), relu(plan.relu) {
    s = choose_split(g, M, N, K, threads);
    ms = round_up(ceil_div(M, s.rows), g.kern.mr), ns = round_up(ceil_div(N, s.cols), g.kern.nr);
    ks = ceil_div(K, s.depth), parts = int64_t(s.rows) * s.cols * s.depth;
    split_sum = s.depth > 1, first_apart = split_sum && accumulate;
    partial = split_sum ? workspace<T>(partial_slot, (s.depth - (first_apart ? 0 : 1)) * M * N) : nullptr;
    first = first_apart ? partial + (s.depth - 1) * M * N : c;
    g.relu = relu && !split_sum;  // a depth split's parts are partial sums: relu once they are added
  }

  void run_part(int64_t part) const {
    const int64_t d = part / (s.rows * s.cols), i0 = part / s.cols % s.rows * ms, j0 = part % s.cols * ns;
    const int64_t k0 = d * ks, m = std::min(ms, M - i0), n = std::min(ns, N - j0), k = std::min(ks, K - k0);
    if (m <= 0 || n <= 0) return;
    T* out = d == 0 ? first : partial + (d - 1) * M * N;
    const bool add = d == 0 && accumulate && !first_apart;
    const T* part_bias = d == 0 && bias ? bias + j0 : nullptr;  // the first depth part adds the bias
    if (k <= 0)
      for (int64_t i = 0; i < m; ++i) fill_row(out + (i0 + i) * N + j0, part_bias, n, add, g.relu);
    else
      gemm_serial(g, a + i0 * g.a_rs + k0 * g.a_ks, b + j0 * g.b_rs + k0 * g.b_ks, part_bias, out + i0 * N + j0, N,
                  m, n, k, add);
  }

  // The partial products added together, shared by the team (called by every thread once all
  // parts are done): each element's sum in the order of the parts, kSumChunk elements at a time,
  // one part after the other (in vector registers; a loop over the parts inside the loop over the
  // elements compiled to scalar adds).
  void sum_parts() const {
    static constexpr int64_t kSumChunk = 512;
#pragma omp for schedule(static)
    for (int64_t e0 = 0; e0 < M * N; e0 += kSumChunk) {
      const int64_t n = std::min(kSumChunk, M * N - e0);
      T sum[kSumChunk];
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) sum[i] = first[e0 + i];
      for (int64_t d = 1; d < s.depth; ++d) {
        const T* part = partial + (d - 1) * M * N + e0;
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) sum[i] += part[i];
      }
      T* out = c + e0;
      if (first_apart) {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) sum[i] = out[i] + sum[i];
      }
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = relu ? relu_math::forward(sum[i]) : sum[i];
    }
  }
};

// The side work of one phase, by this thread of `threads`.
void run_side(GemmSideWorks side, GemmPhase phase, int thread, int threads) {
  for (const GemmSideWork& work : side)
    if (work.phase == phase) work.run(work.context, thread, threads);
}

bool has_side(GemmSideWorks side, GemmPhase phase) {
  return std::any_of(side.begin(), side.end(), [phase](const GemmSideWork& work) { return work.phase == phase; });
}

// Which parts of a team's products each thread runs first: its share of every product's parts, in
// order (thread t of n: parts [t P / n, (t + 1) P / n) of a product of P parts). Parts are numbered
// along the rows of c (or, split by depth, along k), so that share covers about the rows, or the
// rows of the inputs, that kernels sharing rows out by thread number (the elementwise ops, the
// side work) give thread t: it finds them in its own cache. A thread done with its share takes
// the others' next parts, as they become free. Which thread runs a part never changes a result.
template <class T>
class PartQueues {
 public:
  static constexpr int kMaxTeam = 64;  // more threads than this: parts handed out in order instead

  PartQueues(const TeamProduct<T>* products, int count, int threads)
      : products_(products), count_(count), threads_(threads) {}

  // Runs parts until none is left, thread `thread` of the team (every thread calls it once),
  // calling between_parts() after each.
  template <class BetweenParts>
  void run(int thread, BetweenParts between_parts) {
    for (int k = 0; k < queues(); ++k) {
      const int queue = (thread + k) % queues();
      const int64_t n = length(queue);
      for (int64_t i; (i = next_[queue].value.fetch_add(1, std::memory_order_relaxed)) < n;) {
        run_part(queue, i);
        between_parts();
      }
    }
  }

 private:
  struct alignas(64) Counter {  // a cache line each: the threads take parts at the same time
    std::atomic<int64_t> value{0};
  };

  int queues() const { return threads_ > kMaxTeam ? 1 : threads_; }  // one queue: shared by all
  int64_t first(int p, int queue) const { return products_[p].parts * queue / queues(); }
  int64_t length(int queue) const {
    int64_t n = 0;
    for (int p = 0; p < count_; ++p) n += first(p, queue + 1) - first(p, queue);
    return n;
  }
  // Part i of `queue`: its share of product 0, then of product 1, ...
  void run_part(int queue, int64_t i) const {
    for (int p = 0; p < count_; ++p) {
      const int64_t n = first(p, queue + 1) - first(p, queue);
      if (i < n) return products_[p].run_part(first(p, queue) + i);
      i -= n;
    }
  }

  const TeamProduct<T>* products_;
  int count_, threads_;
  Counter next_[kMaxTeam];
};

// A spin-wait's pause: tells an x86 core that the thread only waits.
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// The chain side work's turns (GemmPhase::chain): thread t's call starts once thread t - 1's has
// returned.
class ChainTurns {
 public:
  explicit ChainTurns(GemmSideWorks side) : side_(side) {}

  // Runs thread `thread`'s call if its turn has come; whether it has.
  bool try_run(int thread, int threads) {
    if (done_.load(std::memory_order_acquire) != thread) return false;
    run_side(side_, GemmPhase::chain, thread, threads);
    done_.store(thread + 1, std::memory_order_release);
    return true;
  }

  // Waits for thread `thread`'s turn, then runs its call: spinning a while (the turn is near when
  // the threads have a core each), then giving the core up between looks (more threads than cores).
  void wait_and_run(int thread, int threads) {
    static constexpr int kSpinLooks = 4096;
    for (int looks = 0; !try_run(thread, threads); ++looks) {
      if (looks < kSpinLooks) spin_pause();
      else std::this_thread::yield();
    }
  }

 private:
  GemmSideWorks side_;
  std::atomic<int> done_{0};  // the calls returned so far, in thread order
};

// The products, shared by `threads` threads in one parallel region: the side work before them,
// their parts (PartQueues) with the chain side work taking its turns between them, the sums of the
// depth splits, then the side work after them.
template <class T>
void gemm_team(const TeamProduct<T>* products, int count, int threads, GemmSideWorks side) {
  bool split_sum = false;
  for (int p = 0; p < count; ++p) split_sum |= products[p].split_sum;
  const bool before = has_side(side, GemmPhase::before), chain = has_side(side, GemmPhase::chain),
             after = has_side(side, GemmPhase::after);
  PartQueues<T> parts(products, count, threads);
  ChainTurns turns(side);
#pragma omp parallel num_threads(threads)
  {
    const int thread = omp_get_thread_num(), team = omp_get_num_threads();
    if (before) {
      run_side(side, GemmPhase::before, thread, team);
#pragma omp barrier
    }
    bool chained = !chain || turns.try_run(thread, team);  // thread 0's turn: before its parts
    parts.run(thread, [&] { chained = chained || turns.try_run(thread, team); });
    if (!chained) turns.wait_and_run(thread, team);  // the parts are done, the turn not yet come
    if (split_sum) {
#pragma omp barrier
      for (int p = 0; p < count; ++p)
        if (products[p].split_sum) products[p].sum_parts();  // ends at a barrier
    }
    if (after) {
      if (!split_sum) {
#pragma omp barrier
      }
      run_side(side, GemmPhase::after, thread, team);
    }
  }
}

// The threads a batch of (M,N,K) products runs on: one below kParallelWork multiply-adds.
int gemm_threads(int64_t batch, int64_t M, int64_t N, int64_t K) {
  return batch * M * N * K >= kParallelWork ? omp_get_max_threads() : 1;
}

}  // namespace

void run_side_alone(GemmSideWorks side, std::initializer_list<GemmPhase> phases) {
  for (const GemmPhase phase : phases) run_side(side, phase, 0, 1);
}

template <class T>
void gemm_cpu(T* c, const GemmMatrix<T>& a, const GemmMatrix<T>& b, int64_t batch, int64_t M, int64_t N, int64_t K,
              const T* bias, GemmSideWorks side, bool accumulate, GemmActivation activation) {
  const bool relu = activation == GemmActivation::relu;
  if (relu && accumulate) throw Error("matmul", "gemm_cpu applies relu to a product it writes, not to one it adds");
  const int threads = batch == 0 || M == 0 || N == 0 || K == 0 ? 1 : gemm_threads(batch, M, N, K);
  if (batch == 1 && threads > 1) {  // one product, shared by the team
    const TeamProduct<T> product(make_plan(a, b, 1, M, N, K, threads, relu), a.data + a.offsets[0],
                                 b.data + b.offsets[0], bias, c, M, N, K, threads, accumulate, kSlotPartial);
    return gemm_team(&product, 1, threads, side);
  }
  run_side_alone(side, {GemmPhase::before});
  if (batch == 0 || M == 0 || N == 0 || K == 0) {
    for (int64_t row = 0; row < batch * M; ++row) fill_row(c + row * N, bias, N, accumulate, relu);
  } else {
    const Plan<T> g = make_plan(a, b, batch, M, N, K, threads, relu);
    // Whole products to whichever thread is free while every thread can have one; the rest
    // (fewer than the threads) one after the other, each shared by all threads.
    // One thread: no parallel region at all.
    const int64_t alone = threads > 1 ? batch / threads * threads : 0;
    if (alone > 0) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
      for (int64_t p = 0; p < alone; ++p)
        gemm_serial(g, a.data + a.offsets[p], b.data + b.offsets[p], bias, c + p * M * N, N, M, N, K, accumulate);
    }
    for (int64_t p = alone; p < batch; ++p) {
      const T *ap = a.data + a.offsets[p], *bp = b.data + b.offsets[p];
      if (threads > 1 && M * N * K >= kParallelWork) {
        const TeamProduct<T> product(g, ap, bp, bias, c + p * M * N, M, N, K, threads, accumulate, kSlotPartial);
        gemm_team(&product, 1, threads, {});
      } else {
        gemm_serial(g, ap, bp, bias, c + p * M * N, N, M, N, K, accumulate);
      }
    }
  }
  run_side_alone(side, {GemmPhase::chain, GemmPhase::after});
}

template <class T>
void gemm_cpu_group(std::span<const GemmProduct<T>> products, GemmSideWorks side) {
  if (products.empty() || products.size() > size_t(kGemmMaxGroup))
    throw Error("matmul", "gemm_cpu_group takes 1 to " + std::to_string(kGemmMaxGroup) + " products, got " +
                              std::to_string(products.size()));
  const bool shared = std::all_of(products.begin(), products.end(), [](const GemmProduct<T>& p) {
    return gemm_threads(1, p.M, p.N, p.K) > 1;
  });
  if (!shared) {
    run_side_alone(side, {GemmPhase::before});
    for (const GemmProduct<T>& p : products) gemm_cpu<T>(p.c, p.a, p.b, 1, p.M, p.N, p.K, p.bias, {}, p.accumulate);
    run_side_alone(side, {GemmPhase::chain, GemmPhase::after});
    return;
  }
  const int threads = omp_get_max_threads();
  TeamProduct<T> team[kGemmMaxGroup];
  for (size_t i = 0; i < products.size(); ++i) {
    const GemmProduct<T>& p = products[i];
    team[i] = TeamProduct<T>(make_plan(p.a, p.b, 1, p.M, p.N, p.K, threads), p.a.data + p.a.offsets[0],
                             p.b.data + p.b.offsets[0], p.bias, p.c, p.M, p.N, p.K, threads, p.accumulate,
                             Slot(kSlotPartial + i));
  }
  gemm_team(team, int(products.size()), threads, side);
}

template void gemm_cpu<float>(float*, const GemmMatrix<float>&, const GemmMatrix<float>&, int64_t, int64_t,
                              int64_t, int64_t, const float*, GemmSideWorks, bool, GemmActivation);
template void gemm_cpu<double>(double*, const GemmMatrix<double>&, const GemmMatrix<double>&, int64_t, int64_t,
                               int64_t, int64_t, const double*, GemmSideWorks, bool, GemmActivation);
template void gemm_cpu_group<float>(std::span<const GemmProduct<float>>, GemmSideWorks);
template void gemm_cpu_group<double>(std::span<const GemmProduct<double>>, GemmSideWorks);

std::vector<std::string> gemm_cpu_kernels() {
  std::vector<std::string> names;
  for (Kernel k : kKernels)
    if (cpu_runs(k)) names.emplace_back(kKernelNames[static_cast<int>(k)]);
  return names;
}

void gemm_cpu_force_kernel(const std::string& name) {
  if (name.empty()) return void(forced_kernel = -1);
  for (Kernel k : kKernels)
    if (name == kKernelNames[static_cast<int>(k)] && cpu_runs(k)) return void(forced_kernel = static_cast<int>(k));
  std::string available;
  for (const std::string& n : gemm_cpu_kernels()) available += (available.empty() ? "" : ", ") + n;
  throw Error("matmul", "no GEMM micro-kernel \"" + name + "\" on this CPU; it runs: " + available);
}

const char* gemm_cpu_kernel_name() { return kKernelNames[static_cast<int>(current_kernel())]; }

std::vector<GemmTile> gemm_cpu_tiles(bool f64) {
  std::vector<GemmTile> tiles;
  auto add = [&](const auto& kernels) {
    for (const auto& k : kernels) tiles.push_back({k.mr, k.nr, kGemmDefaultABlockKiB});
  };
  if (f64)
    add(micro_kernels<double>(current_kernel()));
  else
    add(micro_kernels<float>(current_kernel()));
  return tiles;
}

}  // namespace tg
