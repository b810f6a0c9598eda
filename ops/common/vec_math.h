#pragma once
// Helpers for CPU kernels whose inner loops must vectorise (softmax, cross_entropy, gelu, ...).
//
// exp_vec(float): exp without a libm call or a branch, so that a loop calling it compiles to
// SIMD code. Range reduction x = n ln2 + r (|r| <= ln2/2, ln2 split in two for accuracy), then
// Cephes' degree-6 polynomial for exp(r), times 2^n built in the exponent bits. Relative error
// below 1e-7 for x in [-87.3, 88.37]. Below -87.3 (float's smallest normal) it gives 0, as for
// -inf (a masked score); above 88.37 +inf (exp overflows float from 88.72); NaN gives NaN.
// exp_vec(double) is std::exp (the f64 path stays the reference the gradchecks use).
//
// Mark each such loop `#pragma omp simd`: at -O2 (the ci preset, RelWithDebInfo) GCC's cost model
// keeps some of them scalar otherwise (gelu's ran 14x slower that way). A sum along a row goes
// through sum_rows instead of `reduction(+ : ...)`, whose order follows the vector width.
// Inside such loops, a select must not hide a load or a multiply in one branch: GCC keeps
// `k ? x * s : 0` a branch (the multiply might raise an FP exception). Load before the select
// (`v = x[i]; o = m[i] ? fill : v`), or use keep_or_zero(k, x * s), a bit mask.
//
// TG_VEC_CLONES marks a function to be compiled three times, for AVX-512 (x86-64-v4), for
// AVX2 + FMA (x86-64-v3) and for the baseline, with the best one the CPU runs picked when the
// program loads (GCC's target_clones). Put it on a plain function that holds the hot loop, not
// on one with an OpenMP region (the region's outlined body would not be cloned): parallelise in
// the caller, which calls the clone per chunk.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

//
// TG_VEC_CLONES_EXACT is the same without contracting a * b + c into one fused multiply-add
// (x86-64-v3 and v4 have FMA, the baseline has not), so that every clone computes the bits of the
// baseline loop: for loops that were baseline code before and whose results a run's bits depend on
// (the elementwise ops, elementwise_cpu.h).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__CUDACC__)
#define TG_VEC_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define TG_VEC_CLONES_EXACT \
  __attribute__((optimize("fp-contract=off"), target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TG_VEC_CLONES
#define TG_VEC_CLONES_EXACT
#endif

namespace tg {

// std::bit_cast's builtin: libc++ 14 (the WebAssembly build's library, lab/) has no std::bit_cast.
template <class To, class From>
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}

inline float exp_vec(float x) {
  constexpr float kLo = -87.33654f, kHi = 88.37f, kMagic = 12582912.0f;  // exp(kLo) = 2^-126; kMagic = 1.5 * 2^23
  const float shifted = x * 1.44269504f + kMagic;  // round(x / ln2) now sits in the low mantissa bits
  const float n = shifted - kMagic;
  const int32_t i = bit_cast<int32_t>(shifted) - bit_cast<int32_t>(kMagic);  // n as an integer
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;  // x - n ln2, ln2 = 0.693359375 - 2.12e-4
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const float y = p * bit_cast<float>(static_cast<uint32_t>(i + 127) << 23);  // p 2^n
  // The special cases as bit masks, not branches or clamps, which would keep the loop scalar.
  const uint32_t zero = 0u - static_cast<uint32_t>(x < kLo);  // also -inf
  const uint32_t inf = 0u - static_cast<uint32_t>(x > kHi);
  const uint32_t nan = 0u - static_cast<uint32_t>(x != x);
  const uint32_t bits = (bit_cast<uint32_t>(y) & ~(zero | inf | nan)) | (0x7f800000u & inf) |
                        (bit_cast<uint32_t>(x) & nan);
  return bit_cast<float>(bits);
}

inline double exp_vec(double x) { return std::exp(x); }

// Reductions along rows in kLanes<T> partial results, as many as an AVX-512 register holds: lane
// l takes the elements j < n / kLanes * kLanes with j % kLanes == l, in order.
template <class T>
inline constexpr int64_t kLanes = 64 / sizeof(T);

// Tells the compiler that the loop counter k changed, at no cost: a loop whose counter it cannot
// follow is not vectorised. At -O3 GCC would vectorise sum_rows' remainder as an in-order
// reduction and, multiplying apart, stop contracting a product into its addition, which changes
// the sum's last bits.
[[gnu::always_inline]] inline void keep_scalar(int64_t& k) { asm("" : "+r"(k)); }

// Bytes / sizeof(T) lanes of T as one value (GCC's and Clang's vector extension), which the
// compiler keeps in a register where the target has one that wide.
template <class T, int Bytes>
struct VecN {
  typedef T type __attribute__((vector_size(Bytes)));
};

// For the lanes' last steps below, half of kLanes<T> lanes (32 bytes), and four lanes: shuffles in
// registers, where GCC takes an array's lanes through memory one by one. 32 bytes, not 64: where
// AVX-512 is not there (the x86-64-v3 clone), GCC splits a 64-byte vector's shuffles into single
// lanes through memory.
template <class T>
using HalfLanes = typename VecN<T, 32>::type;
template <class T>
using FourLanes = typename VecN<T, 4 * sizeof(T)>::type;

// Lane i of the result is lane Pick(i) of a and b side by side (a's lanes, then b's).
// (References, not values: a vector argument wider than 16 bytes would change the ABI of a
// clone without AVX.)
template <auto Pick, class V, size_t... I>
[[gnu::always_inline]] inline void shuffle_lanes(V& out, const V& a, const V& b, std::index_sequence<I...>) {
  out = __builtin_shufflevector(a, b, Pick(I)...);
}

// sums[r] = lanes acc[r][0..kLanes) added in order to +0 for four rows at once, in four-lane
// vectors: lane l of the four rows gathered by a 4 x 4 transposition in each group of four lanes.
template <class T>
[[gnu::always_inline]] inline void add_lanes_in_order(const T (&acc)[4][kLanes<T>], T (&sums)[4]) {
  constexpr int64_t lanes = kLanes<T>, half = lanes / 2;
  using H = HalfLanes<T>;
  constexpr auto all = std::make_index_sequence<half>{};
  // Per group of four lanes (4g .. 4g + 3), a 4 x 4 transposition. pairs_low takes two rows' x and
  // y lanes 4g, 4g + 1 as (x[4g], y[4g], x[4g + 1], y[4g + 1]), pairs_high lanes 4g + 2, 4g + 3.
  constexpr auto pairs_low = [](size_t i) { return int(i / 4 * 4 + i % 4 / 2 + i % 2 * half); };
  constexpr auto pairs_high = [](size_t i) { return int(i / 4 * 4 + 2 + i % 4 / 2 + i % 2 * half); };
  // From the pairs of rows 0, 1 and of rows 2, 3: the four rows' first lane of the pair, or second.
  constexpr auto first = [](size_t i) { return int(i / 4 * 4 + i % 2 + i % 4 / 2 * half); };
  constexpr auto second = [](size_t i) { return int(i / 4 * 4 + 2 + i % 2 + i % 4 / 2 * half); };
  FourLanes<T> s = {};  // the four rows' sums, from +0
  for (int64_t h = 0; h < lanes; h += half) {  // the lanes in two halves
    H a[4];
    for (int r = 0; r < 4; ++r) std::memcpy(&a[r], acc[r] + h, sizeof(H));
    H low01, high01, low23, high23, lane[4];  // lane[k]: lane h + 4g + k of rows 0..3 in group g
    shuffle_lanes<pairs_low>(low01, a[0], a[1], all), shuffle_lanes<pairs_high>(high01, a[0], a[1], all);
    shuffle_lanes<pairs_low>(low23, a[2], a[3], all), shuffle_lanes<pairs_high>(high23, a[2], a[3], all);
    shuffle_lanes<first>(lane[0], low01, low23, all), shuffle_lanes<second>(lane[1], low01, low23, all);
    shuffle_lanes<first>(lane[2], high01, high23, all), shuffle_lanes<second>(lane[3], high01, high23, all);
#pragma GCC unroll 4
    for (int64_t group = 0; group < half / 4; ++group) {
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        decltype(s) next;  // lane h + 4 group + k of the four rows
        std::memcpy(&next, reinterpret_cast<const T*>(&lane[k]) + 4 * group, sizeof next);
        s += next;
      }
    }
  }
  for (int r = 0; r < 4; ++r) sums[r] = s[r];
}

// The sums over j < n of each f(r, j) of fs for Rows rows r at once (sums[k][r] = writes, for the
// k-th f): each row's each sum exactly as `#pragma omp simd reduction(+ : s...)` adds it with GCC
// on AVX-512: in the lanes, the remainder added to lane 0 in order, then the lanes added in order
// to +0. Written out, the sums are the same whatever the vector width (AVX2 too), and the serial
// additions of the lanes of four rows run side by side in four-lane vectors (add_lanes_in_order);
// other row counts add lane by lane. All fs run in one loop body, as in that loop, so that the
// compiler shares their common parts and contracts products into the additions exactly as it
// does there.
template <int Rows, class T, class... F, size_t... K>
[[gnu::always_inline]] inline void sum_rows_of(std::index_sequence<K...>, int64_t n, T (&sums)[sizeof...(F)][Rows],
                                               F... fs) {
  constexpr int64_t lanes = kLanes<T>;
  T acc[sizeof...(F)][Rows][lanes] = {};
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) {
#pragma omp simd
      for (int64_t l = 0; l < lanes; ++l) ((acc[K][r][l] += fs(r, j + l)), ...);
    }
  }
  for (int r = 0; r < Rows; ++r)  // one row at a time, as alone; in scalar code (keep_scalar)
    for (int64_t k = j; k < n; keep_scalar(++k)) ((acc[K][r][0] += fs(r, k)), ...);
  if constexpr (Rows == 4) {
    ((add_lanes_in_order(acc[K], sums[K])), ...);
  } else {
    for (T(&s)[Rows] : sums) std::fill(s, s + Rows, T(0));
#pragma GCC unroll 16
    for (int64_t l = 0; l < lanes; ++l) {
#pragma GCC unroll 4
      for (int r = 0; r < Rows; ++r) ((sums[K][r] += acc[K][r][l]), ...);
    }
  }
}

template <int Rows, class T, class... F>
[[gnu::always_inline]] inline void sum_rows(int64_t n, T (&sums)[sizeof...(F)][Rows], F... fs) {
  sum_rows_of<Rows>(std::index_sequence_for<F...>{}, n, sums, fs...);
}

// True where the loader picked TG_VEC_CLONES' AVX-512 clones (x86-64-v4): a clone can then choose
// 64-byte vectors for a loop that names its vectors' width (add_rows_in_order).
inline bool runs_avx512_clones() {
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__CUDACC__)
  return __builtin_cpu_supports("x86-64-v4");
#else
  return false;
#endif
}

// dst[0..width) += row(0)[0..width), then row(1)'s, ..., row(count - 1)'s, each element converted
// to Sum first: each column adds the rows in order, so the result does not depend on how the
// columns are cut. Strips of Vecs vectors of VecBytes keep their sums in registers while the rows
// stream past, so no sum waits on its own store (a bias's column sums, the rows of one index that
// embedding's backward gathers, sums over leading dims). The sums are GCC vectors. A plain loop
// over an array of sums did not do: with rows looked up by index, as embedding's are, GCC -O3
// turned it into a scalar loop that added two rows at a time through memory.
template <class T, int Lanes>
struct VecOf {  // a GCC vector of Lanes T (an alias with the attribute would lose it on a dependent T)
  typedef T type __attribute__((vector_size(sizeof(T) * Lanes)));
};
// The strips of Vecs vectors from column j0 on while they fit; returns the column where they stop.
template <int VecBytes, int Vecs, class Sum, class RowOf>
[[gnu::always_inline]] inline int64_t add_column_strips(Sum* dst, int64_t j0, int64_t width, int64_t count,
                                                        RowOf row) {
  using T = std::remove_cvref_t<decltype(*row(0))>;
  constexpr int kLanesOfSum = VecBytes / sizeof(Sum), kColumns = Vecs * kLanesOfSum;
  using V = typename VecOf<Sum, kLanesOfSum>::type;
  using Row = typename VecOf<T, kLanesOfSum>::type;
  for (; j0 + kColumns <= width; j0 += kColumns) {
    V sum[Vecs];
    std::memcpy(sum, dst + j0, sizeof sum);
    for (int64_t k = 0; k < count; ++k) {
      const T* r = row(k) + j0;
#pragma GCC unroll 16
      for (int v = 0; v < Vecs; ++v) {
        Row x;
        std::memcpy(&x, r + v * kLanesOfSum, sizeof x);
        // Lane by lane: GCC 12 makes that one vcvtps2pd ymm -> zmm, but __builtin_convertvector's
        // float x 8 -> double x 8 two halves and the moves between them.
        V converted{};
        for (int l = 0; l < kLanesOfSum; ++l) converted[l] = static_cast<Sum>(x[l]);
        sum[v] += converted;
      }
    }
    std::memcpy(dst + j0, sum, sizeof sum);
  }
  return j0;
}
// Strips of 8 vectors of 32 bytes (AVX2's widest: 8 of AVX2's 16 registers), or, with
// `avx512` (in a TG_VEC_CLONES function: runs_avx512_clones()), of 16 vectors of 64 bytes (16 of
// AVX-512's 32): 4x the columns per pass over the rows. Then narrower strips and single columns
// for what is left.
template <class Sum, class RowOf>
[[gnu::always_inline]] inline void add_rows_in_order(Sum* dst, int64_t width, int64_t count, RowOf row,
                                                     bool avx512) {
  int64_t j = 0;
  if (avx512) {
    j = add_column_strips<64, 16>(dst, j, width, count, row);
    j = add_column_strips<64, 4>(dst, j, width, count, row);
  }
  j = add_column_strips<32, 8>(dst, j, width, count, row);
  j = add_column_strips<32, 1>(dst, j, width, count, row);
  for (int64_t k = 0; k < count; ++k) {
    const auto* r = row(k);
    for (int64_t c = j; c < width; ++c) dst[c] += static_cast<Sum>(r[c]);
  }
}

// Rows a kernel takes at once, so that their sums' serial steps overlap (sum_rows). Each row's
// arithmetic is the same as alone, so the grouping never changes a result.
inline constexpr int kRowGroup = 4;

// acc[l] = max(acc[l], acc[l + width]) for l < width, then the same with width / 2, ... 1.
template <int64_t Width, class V, size_t... I>
[[gnu::always_inline]] inline void max_with_lanes(V& acc, std::index_sequence<I...> all) {
  if constexpr (Width > 0) {
    const V other = __builtin_shufflevector(acc, acc, int(I ^ Width)...);
    acc = other > acc ? other : acc;
    max_with_lanes<Width / 2>(acc, all);
  }
}

// The largest of m and x[0..n), NaN skipped; max_vec(x, n, -INFINITY) of a row of -inf (fully
// masked) is -inf.
template <class T>
[[gnu::always_inline]] inline T max_vec(const T* x, int64_t n, T m) {
  constexpr int64_t lanes = kLanes<T>, half = lanes / 2;
  using H = HalfLanes<T>;
  H low, high;  // lanes 0 .. half - 1 and half .. lanes - 1
  for (int64_t l = 0; l < half; ++l) low[l] = m, high[l] = m;
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    H v;
    std::memcpy(&v, x + j, sizeof v);
    low = v > low ? v : low;
    std::memcpy(&v, x + j + half, sizeof v);
    high = v > high ? v : high;
  }
  for (int64_t l = 0; l < half && j + l < n; ++l) low[l] = x[j + l] > low[l] ? x[j + l] : low[l];
  for (int64_t l = half; j + l < n; ++l) high[l - half] = x[j + l] > high[l - half] ? x[j + l] : high[l - half];
  // a tree, lane l against lane l + width from width = half down: the max is the same in any order
  low = high > low ? high : low;
  max_with_lanes<half / 2>(low, std::make_index_sequence<half>{});
  return low[0];
}

// erf_vec(float): erf without a libm call or a branch, for loops that must vectorise. For
// |x| < 0.5 the Taylor series 2/sqrt(pi) (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320
// + x^13/9360) (relative error ~1e-7 there); else Abramowitz and Stegun's formula 7.1.26
// (Handbook of Mathematical Functions, 1964) on a = |x|: erf(a) = 1 - (a1 t + ... + a5 t^5)
// exp(-a^2), t = 1 / (1 + p a) (absolute error 1.5e-7; with float rounding within 3.2e-7 of
// std::erf on [-10, 10], about 5 ulps at 0.5), with x's sign.
// Both are computed and one is selected, so the loop stays branch-free. erf_vec(double) is
// std::erf.
inline float erf_vec(float x) {
  const float x2 = x * x;
  float series = 1.0f / 9360;
  series = series * x2 - 1.0f / 1320;
  series = series * x2 + 1.0f / 216;
  series = series * x2 - 1.0f / 42;
  series = series * x2 + 1.0f / 10;
  series = series * x2 - 1.0f / 3;
  series = (series * x2 + 1.0f) * x * 1.1283791671f;  // 2 / sqrt(pi)
  const float a = std::fabs(x), t = 1.0f / (1.0f + 0.3275911f * a);
  float poly = 1.061405429f;
  poly = poly * t - 1.453152027f;
  poly = poly * t + 1.421413741f;
  poly = poly * t - 0.284496736f;
  poly = poly * t + 0.254829592f;
  const float tail = std::copysign(1.0f - poly * t * exp_vec(-x2), x);
  const uint32_t near_zero = 0u - static_cast<uint32_t>(a < 0.5f);  // a bit mask: `?:` would stay a branch
  return bit_cast<float>((bit_cast<uint32_t>(series) & near_zero) |
                              (bit_cast<uint32_t>(tail) & ~near_zero));
}

inline double erf_vec(double x) { return std::erf(x); }

// How many floats lie from a to b (finite, either sign), the distance in ulps the accuracy of
// erf_polynomial and erf_vec is stated in.
inline int64_t ulps_between(float a, float b) {
  const auto order = [](float x) {  // the floats in order, as integers
    const int32_t bits = bit_cast<int32_t>(x);
    return bits < 0 ? -static_cast<int64_t>(bits & 0x7fffffff) : int64_t{bits};
  };
  const int64_t d = order(a) - order(b);
  return d < 0 ? -d : d;
}

// c_n x^n + ... + c_1 x + c_0 (highest first), by Horner's rule: straight-line code, no loop.
template <class... C>
[[gnu::always_inline]] inline float horner(float x, float highest, C... lower) {
  float p = highest;
  ((p = p * x + lower), ...);
  return p;
}

// An odd function of x pieced together on a = |x|: `near` where a < mid_from, `mid` where
// mid_from <= a < far_from (and for NaN), `far` from far_from on, each given for a and signed here
// as x. Every piece is computed by the caller and one is selected by bit masks (`?:` would stay a
// branch), so the loop around it stays branch-free.
[[gnu::always_inline]] inline float odd_pieces(float x, float near, float mid_from, float mid, float far_from,
                                               float far) {
  const float a = std::fabs(x);
  const uint32_t is_near = 0u - static_cast<uint32_t>(a < mid_from);
  const uint32_t is_far = 0u - static_cast<uint32_t>(a >= far_from);
  const uint32_t bits = (bit_cast<uint32_t>(near) & is_near) | (bit_cast<uint32_t>(mid) & ~(is_near | is_far)) |
                        (bit_cast<uint32_t>(far) & is_far);
  return std::copysign(bit_cast<float>(bits), x);
}

// erf_polynomial(float): erf in numerics version 2 (core/numerics.h), faster than erf_vec and
// within 2 ulps of erf over every float (`tapegrad_gelu_accuracy`, bench/): no exp and no
// division. On a = |x|: for a < 1, a P(a^2) with P of degree 7; for 1 <= a < 3.9, Q(s) with
// s = (2a - 4.9) / 2.9 and Q of degree 14; from 3.9 (where erf is within 2 ulps of 1) on, 1; with
// x's sign (odd_pieces). P and Q are minimax fits, scripts/fit_gelu_polynomials.py.
// erf_polynomial(double) is std::erf.
inline float erf_polynomial(float x) {
  const float a = std::fabs(x), w = a * a;
  const float p = horner(w, -9.6801705e-06f, 0.00011270557f, -0.00084847136f, 0.005221075f, -0.026865445f,
                         0.11283783f, -0.37612638f, 1.1283791f);
  const float s = a * (2.0f / 2.9f) - (4.9f / 2.9f);
  const float q = horner(s, 0.00020736073f, -1.4242912e-06f, -0.0015255976f, 0.0015775381f, 0.0030352718f,
                         -0.008678771f, 0.0074651185f, 0.0057796296f, -0.027580338f, 0.044722244f, -0.04534926f,
                         0.031204982f, -0.014371598f, 0.0040453933f, 0.9994694f);
  return odd_pieces(x, p * a, 1.0f, q, 3.9f, 1.0f);
}

inline double erf_polynomial(double x) { return std::erf(x); }

// f(first, count) for the consecutive chunks of `chunk` elements that cover [0, n), spread over
// the threads when n exceeds `grain`: the caller's loop around a TG_VEC_CLONES function.
template <class F>
void for_chunks(int64_t n, int64_t chunk, int64_t grain, F f) {
#pragma omp parallel for if (n > grain)
  for (int64_t first = 0; first < n; first += chunk) f(first, std::min(chunk, n - first));
}

// Elements per call of a TG_VEC_CLONES loop from a flat loop's OpenMP region (for_chunks,
// for_row_chunks): the elementwise ops, masked_fill, dropout's backward, embedding's forward.
inline constexpr int64_t kElementwiseChunk = 16384;

// for_chunks over `rows` rows of `width` elements, in chunks of whole rows of about
// kElementwiseChunk elements, spread over the threads when rows * width exceeds `grain`.
template <class F>
void for_row_chunks(int64_t rows, int64_t width, int64_t grain, F f) {
  const int64_t w = std::max<int64_t>(width, 1);  // no division by zero where width = 0
  for_chunks(rows, std::max<int64_t>(1, kElementwiseChunk / w), grain / w, f);
}

// k ? v : 0 for k in {0, 1}, as a bit mask (no branch, so the loop vectorises).
template <class T>
T keep_or_zero(uint8_t k, T v) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  return bit_cast<T>(static_cast<Bits>(bit_cast<Bits>(v) & (Bits{0} - Bits{k})));
}

// A bool mask read as bytes: GCC vectorises `m[i] ? a : b` over uint8_t loads, not over bool loads.
inline const uint8_t* mask_bytes(const bool* m) { return reinterpret_cast<const uint8_t*>(m); }

}  // namespace tg
