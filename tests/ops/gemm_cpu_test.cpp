// gemm_cpu (matmul's CPU kernel) against a naive triple loop in double: odd sizes around the
// micro-kernel tiles, sizes across the cache blocks, all four layouts, batches with shared and
// padded operands, f32 and f64, on 1 to 3 threads, with the AVX2 kernel (where the CPU has
// it) and with the portable one.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/gemm_test_util.h"

using namespace tg;
using test::for_kernels_and_threads;

namespace {

// One product: c (batch,M,N) = op(a) @ op(b) (+ a bias (N) on every row, with_bias). Each
// stored matrix has `pad` unused elements at the end of every row (ld = row length + pad); with
// shared_b every batch element reads the same b (repeated offsets: a broadcast operand).
struct Problem {
  int64_t batch, M, N, K;
  bool ta, tb;
  int64_t pad = 0;
  bool shared_b = false;
  bool with_bias = false;
};

std::string describe(const Problem& p) {
  return "batch " + std::to_string(p.batch) + " M " + std::to_string(p.M) + " N " + std::to_string(p.N) + " K " +
         std::to_string(p.K) + (p.ta ? " a^T" : " a") + (p.tb ? " b^T" : " b") + " pad " + std::to_string(p.pad) +
         (p.shared_b ? " shared b" : "") + (p.with_bias ? " bias" : "");
}

// A value in [-1, 1) that depends only on i.
double value(uint64_t i) {
  i = (i + 1) * 0x9E3779B97F4A7C15ull;
  i ^= i >> 29;
  return static_cast<double>(i % 2000) / 1000.0 - 1.0;
}

// Runs gemm_cpu<T> on the problem and requires every element within rounding of the naive loop.
template <class T>
void check(const Problem& p) {
  CAPTURE(describe(p));
  const int64_t a_rows = p.ta ? p.K : p.M, lda = (p.ta ? p.M : p.K) + p.pad;
  const int64_t b_rows = p.tb ? p.N : p.K, ldb = (p.tb ? p.K : p.N) + p.pad;
  const int64_t b_count = p.shared_b ? 1 : p.batch;
  std::vector<T> a(p.batch * a_rows * lda), b(b_count * b_rows * ldb);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>(value(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<T>(value(i + a.size()));
  std::vector<int64_t> a_off, b_off;
  for (int64_t q = 0; q < p.batch; ++q) {
    a_off.push_back(q * a_rows * lda);
    b_off.push_back(p.shared_b ? 0 : q * b_rows * ldb);
  }
  std::vector<T> bias(p.N);
  for (size_t j = 0; j < bias.size(); ++j) bias[j] = static_cast<T>(value(j + 7 * a.size()));
  std::vector<T> c(p.batch * p.M * p.N, T(1e6));  // gemm_cpu writes: no trace of this may remain
  gemm_cpu<T>(c.data(), {a.data(), a_off.data(), lda, p.ta}, {b.data(), b_off.data(), ldb, p.tb}, p.batch, p.M, p.N,
              p.K, p.with_bias ? bias.data() : nullptr);

  const double eps = sizeof(T) == 4 ? 1e-5 : 1e-13;  // of the sum of |terms|: well above rounding
  int64_t wrong = 0;
  std::string first;
  // op(a)(i, k) = aq[i*a_rs + k*a_ks], op(b)(k, j) = bq[k*b_ks + j*b_cs]
  const int64_t a_rs = p.ta ? 1 : lda, a_ks = p.ta ? lda : 1, b_ks = p.tb ? 1 : ldb, b_cs = p.tb ? ldb : 1;
  for (int64_t q = 0; q < p.batch; ++q)
    for (int64_t i = 0; i < p.M; ++i)
      for (int64_t j = 0; j < p.N; ++j) {
        double sum = p.with_bias ? double(bias[j]) : 0, size = std::fabs(sum);
        for (int64_t k = 0; k < p.K; ++k) {  // indices, not pointers: a and b are empty when K = 0
          const double xy = double(a[a_off[q] + i * a_rs + k * a_ks]) * double(b[b_off[q] + k * b_ks + j * b_cs]);
          sum += xy;
          size += std::fabs(xy);
        }
        const double got = c[(q * p.M + i) * p.N + j];
        if (std::fabs(got - sum) <= eps * (1 + size)) continue;
        if (wrong++ == 0)
          first = "c[" + std::to_string(q) + "," + std::to_string(i) + "," + std::to_string(j) +
                  "] = " + std::to_string(got) + ", expected " + std::to_string(sum);
      }
  CHECK_MESSAGE(wrong == 0, wrong, " wrong elements, first ", first);
}

// All four layouts of p in f32, and of p with N = n64 in f64 (default: the same N).
void check_layouts(Problem p, int64_t n64 = 0) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      p.ta = ta;
      p.tb = tb;
      check<float>(p);
      Problem p64 = p;
      if (n64 > 0) p64.N = n64;
      check<double>(p64);
    }
}

}  // namespace

TEST_CASE("gemm_cpu: choosing the micro-kernel") {
  const std::vector<std::string> kernels = gemm_cpu_kernels();
  REQUIRE(!kernels.empty());
  CHECK(kernels.back() == "portable");  // every CPU runs it
  const std::string best = gemm_cpu_kernel_name();
  CHECK(best == kernels.front());
  for (const std::string& kernel : kernels) {
    gemm_cpu_force_kernel(kernel);
    CHECK(gemm_cpu_kernel_name() == kernel);
  }
  CHECK_THROWS_WITH_AS(gemm_cpu_force_kernel("sse9"), doctest::Contains("no GEMM micro-kernel \"sse9\""), Error);
  gemm_cpu_force_kernel("");
  CHECK(gemm_cpu_kernel_name() == best);
}

TEST_CASE("gemm_cpu: hand-worked 2x3 @ 3x2 in every layout") {
  // [1 2 3; 4 5 6] @ [7 8; 9 10; 11 12] = [58 64; 139 154]
  const std::vector<float> a = {1, 2, 3, 4, 5, 6}, a_t = {1, 4, 2, 5, 3, 6};
  const std::vector<float> b = {7, 8, 9, 10, 11, 12}, b_t = {7, 9, 11, 8, 10, 12};
  const int64_t zero = 0;
  for_kernels_and_threads({1}, [&] {
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        std::vector<float> c(4, -1);
        gemm_cpu<float>(c.data(), {(ta ? a_t : a).data(), &zero, ta ? 2 : 3, ta},
                        {(tb ? b_t : b).data(), &zero, tb ? 3 : 2, tb}, 1, 2, 2, 3);
        CHECK(c == std::vector<float>{58, 64, 139, 154});
      }
  });
}

TEST_CASE("gemm_cpu: every size 1..37 against a naive loop") {
  // Each of M, N, K takes every value 1..37 (square, and mixed so that the three differ),
  // hitting every remainder of the micro-kernel tiles (4 or 6 rows, 4 to 16 columns).
  for_kernels_and_threads({omp_get_max_threads()}, [] {
    for (int64_t s = 1; s <= 37; ++s) {
      check_layouts({1, s, s, s, false, false});
      check_layouts({1, s, s * 7 % 37 + 1, s * 13 % 37 + 1, false, false});
    }
  });
}

TEST_CASE("gemm_cpu: sizes across the cache blocks") {
  // K = 520 is cut into depth blocks (kc <= 256 for the AVX2 kernels, 512 for the portable
  // ones) and 150 rows into several row blocks; with K = 257, N = 4100 floats or 2100 doubles
  // need two column blocks (nc about 4064 floats, 2032 doubles). Threads split the row blocks.
  for_kernels_and_threads({2}, [] {
    check_layouts({1, 150, 17, 520, false, false});
    check_layouts({1, 2, 4100, 257, false, false}, 2100);
  });
}

TEST_CASE("gemm_cpu: batches, shared and padded operands, threads") {
  // batch 5 on 2 threads: 4 elements run whole, one thread each, the 5th is shared by both; on
  // 3 threads 3 run whole and 2 are shared. Each product is above the parallel threshold
  // (65536 multiply-adds), so a shared one is cut into parts: a grid of rows and columns
  // (200 x 64; 37 x 29 on 2 threads), or the depth, with partial sums added at the end (the
  // rest).
  for_kernels_and_threads({2, 3}, [] {
    check_layouts({5, 37, 29, 71, false, false, 3, false});
    check_layouts({5, 41, 19, 90, false, false, 0, true});
    check_layouts({1, 3, 90, 300, false, false, 1});
    check_layouts({1, 200, 64, 40, false, false});
    check_layouts({1, 8, 8, 2048, false, false});
  });
}

TEST_CASE("gemm_cpu: a bias added to every row (Linear's forward)") {
  // Edge tiles in both directions, several depth blocks, the shapes of a depth split on 2-3
  // threads (small M, N, long K), a batch, and K = 0 (c is the bias alone).
  for_kernels_and_threads({1, 2, 3}, [] {
    for (const Problem& p : {Problem{1, 37, 45, 300, false, false}, Problem{1, 8, 40, 4000, true, false},
                             Problem{3, 13, 33, 20, false, true, 2, true}, Problem{2, 5, 7, 0, false, false}}) {
      Problem q = p;
      q.with_bias = true;
      check_layouts(q);
    }
  });
}

TEST_CASE("gemm_cpu: empty sizes") {
  // K = 0: c is all zeros; M = 0 or N = 0: nothing is written.
  const int64_t offsets[2] = {0, 0};
  const float x = 1;
  std::vector<float> c(6, 7);
  gemm_cpu<float>(c.data(), {&x, offsets, 1, false}, {&x, offsets, 3, false}, 2, 1, 3, 0);
  CHECK(c == std::vector<float>(6, 0));
  c.assign(6, 7);
  gemm_cpu<float>(c.data(), {&x, offsets, 1, false}, {&x, offsets, 1, false}, 2, 0, 3, 1);
  gemm_cpu<float>(c.data(), {&x, offsets, 1, false}, {&x, offsets, 1, false}, 2, 3, 0, 1);
  CHECK(c == std::vector<float>(6, 7));
}

TEST_CASE("gemm_cpu: accumulating gives the bits of the product written alone and then added") {
  // c += op(a) @ op(b) must equal c + (the same product written into a tensor of its own), bit for
  // bit: a backward rule adds its gradient into one already gathered that way (matmul_add_cpu).
  // One block of k (the micro-kernel adds its finished sums), several (K = 700: the whole product
  // first), a depth split on 2-3 threads (small M, N, long K: the parts summed, then added), the
  // toy step's dweight shape, a bias, a batch, and K = 0 (c += the bias alone).
  auto same_bits = [](const Problem& p) {
    CAPTURE(describe(p));
    const int64_t a_rows = p.ta ? p.K : p.M, lda = p.ta ? p.M : p.K, b_rows = p.tb ? p.N : p.K, ldb = p.tb ? p.K : p.N;
    std::vector<float> a(p.batch * a_rows * lda), b(p.batch * b_rows * ldb), bias(p.N), c_old(p.batch * p.M * p.N);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(value(i));
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(value(i + a.size()));
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(value(i + 3 * a.size()));
    for (size_t i = 0; i < c_old.size(); ++i) c_old[i] = static_cast<float>(value(i + 5 * a.size()) * 100);
    std::vector<int64_t> a_off, b_off;
    for (int64_t q = 0; q < p.batch; ++q) {
      a_off.push_back(q * a_rows * lda);
      b_off.push_back(q * b_rows * ldb);
    }
    const GemmMatrix<float> ga{a.data(), a_off.data(), lda, p.ta}, gb{b.data(), b_off.data(), ldb, p.tb};
    const float* with_bias = p.with_bias ? bias.data() : nullptr;
    std::vector<float> product(c_old.size()), expected(c_old.size()), c = c_old;
    gemm_cpu<float>(product.data(), ga, gb, p.batch, p.M, p.N, p.K, with_bias);
    for (size_t i = 0; i < c.size(); ++i) expected[i] = c_old[i] + product[i];
    gemm_cpu<float>(c.data(), ga, gb, p.batch, p.M, p.N, p.K, with_bias, {}, true);
    int64_t differ = 0;
    for (size_t i = 0; i < c.size(); ++i) differ += std::memcmp(&c[i], &expected[i], sizeof(float)) != 0;
    CHECK_MESSAGE(differ == 0, differ, " elements differ");
  };
  for_kernels_and_threads({1, 2, 3}, [&] {
    for (bool ta : {false, true})
      for (const Problem& p : {Problem{1, 37, 45, 100, ta, false}, Problem{1, 64, 48, 700, ta, true},
                               Problem{1, 8, 40, 4000, ta, false}, Problem{1, 128, 128, 2048, ta, true},
                               Problem{1, 29, 33, 300, ta, false, 0, false, true},
                               Problem{5, 37, 29, 71, ta, false}, Problem{2, 5, 7, 0, ta, false, 0, false, true}})
        same_bits(p);
  });
}

TEST_CASE("gemm_cpu_group: each product has the bits gemm_cpu gives it alone, in one parallel region") {
  // A backward rule's two gradients (Linear's dweight and dx) or the q, k and v projections of one
  // input run as one team: each product must be cut into the parts gemm_cpu cuts it into alone,
  // its depth split's partial sums kept apart from the others'. Groups: the toy step's dweight (a
  // depth split) with its dx accumulating; two depth splits, one accumulating; three projections
  // with biases; one product too small to share (plain calls then); K = 0.
  struct Operands {
    std::vector<float> a, b, c, bias;
    std::vector<int64_t> offsets{0};
    GemmProduct<float> product(const Problem& p, bool accumulate) {
      return {c.data(), {a.data(), offsets.data(), p.ta ? p.M : p.K, p.ta}, {b.data(), offsets.data(), p.N, false},
              p.M, p.N, p.K, p.with_bias ? bias.data() : nullptr, accumulate};
    }
  };
  auto operands = [](const Problem& p, uint64_t seed) {
    Operands o{std::vector<float>(p.M * p.K), std::vector<float>(p.K * p.N), std::vector<float>(p.M * p.N),
               std::vector<float>(p.N)};
    for (size_t i = 0; i < o.a.size(); ++i) o.a[i] = static_cast<float>(value(seed + i));
    for (size_t i = 0; i < o.b.size(); ++i) o.b[i] = static_cast<float>(value(seed + 3 * i + 1));
    for (size_t i = 0; i < o.c.size(); ++i) o.c[i] = static_cast<float>(value(seed + 5 * i + 2) * 100);
    for (size_t i = 0; i < o.bias.size(); ++i) o.bias[i] = static_cast<float>(value(seed + 7 * i + 3));
    return o;
  };
  struct SideCalls {
    std::vector<int> calls;
    static void run(const void* context, int thread, int threads) {
      auto& self = *static_cast<SideCalls*>(const_cast<void*>(context));
#pragma omp critical
      self.calls.push_back(thread * 100 + threads);
    }
  };
  struct Member {
    Problem problem;
    bool accumulate;
  };
  auto same_bits = [&](const std::vector<Member>& group) {
    std::vector<Operands> alone, together;
    std::vector<GemmProduct<float>> products;
    for (size_t i = 0; i < group.size(); ++i) {
      const Problem& p = group[i].problem;
      CAPTURE(describe(p));
      alone.push_back(operands(p, i));
      together.push_back(operands(p, i));
      const GemmProduct<float> g = alone.back().product(p, group[i].accumulate);
      gemm_cpu<float>(g.c, g.a, g.b, 1, p.M, p.N, p.K, g.bias, {}, g.accumulate);
    }
    for (size_t i = 0; i < group.size(); ++i)
      products.push_back(together[i].product(group[i].problem, group[i].accumulate));
    SideCalls side_calls;
    const GemmSideWork side{SideCalls::run, &side_calls};
    gemm_cpu_group<float>(products, {&side, 1});
    for (size_t i = 0; i < group.size(); ++i) {
      CAPTURE(describe(group[i].problem));
      CHECK(std::memcmp(alone[i].c.data(), together[i].c.data(), alone[i].c.size() * sizeof(float)) == 0);
    }
    std::sort(side_calls.calls.begin(), side_calls.calls.end());  // each thread of the team once
    const int threads = static_cast<int>(side_calls.calls.size());
    REQUIRE(threads >= 1);
    for (int t = 0; t < threads; ++t) CHECK(side_calls.calls[t] == t * 100 + threads);
  };
  const Problem projection{1, 512, 128, 128, false, false, 0, false, true};
  for_kernels_and_threads({1, 2, 3}, [&] {
    same_bits({{Problem{1, 128, 128, 2048, true, false}, false}, {Problem{1, 512, 128, 128, false, false}, true}});
    same_bits({{Problem{1, 8, 40, 4000, false, false}, false}, {Problem{1, 8, 40, 4000, true, false}, true}});
    same_bits({{projection, false}, {projection, false}, {projection, false}});
    same_bits({{Problem{1, 8, 40, 4000, false, false}, true}, {Problem{1, 8, 40, 4000, true, false}, false},
               {Problem{1, 300, 64, 200, true, false}, true}});
    same_bits({{Problem{1, 300, 64, 200, false, false}, true}, {Problem{1, 3, 5, 7, false, false}, false}});
    same_bits({{Problem{1, 64, 64, 0, false, false, 0, false, true}, true},
               {Problem{1, 256, 256, 256, true, false}, false}});
  });
  CHECK_THROWS_WITH_AS(gemm_cpu_group<float>(std::vector<GemmProduct<float>>(4)),
                       doctest::Contains("takes 1 to 3 products, got 4"), Error);
  CHECK_THROWS_WITH_AS(gemm_cpu_group<float>({}), doctest::Contains("takes 1 to 3 products, got 0"), Error);
}

TEST_CASE("gemm_cpu and gemm_cpu_group: side work before the products, chained beside them and after them") {
  // The before work writes a (NaN until then), so the products are right only if they start after
  // all of it; the after work copies c, so the copy is the product only if it starts once every
  // part and depth sum is done; the chain work adds a up, slice after slice, so its sum is the sum
  // in order only if each thread's call starts once the call of the thread before it is done. Each
  // work runs once per thread of the team (the chain's in thread order), or once as (0, 1).
  // Shapes: a team with a depth split on 2-3 threads, a team split by rows, one too small to share,
  // a batch (run alone), and a group of two.
  struct SliceCopy {
    float* to;
    const float* from;
    int64_t n;
    std::vector<int> calls = {};
    static void run(const void* context, int t, int threads) {
      auto& s = *static_cast<SliceCopy*>(const_cast<void*>(context));
      std::copy(s.from + s.n * t / threads, s.from + s.n * (t + 1) / threads, s.to + s.n * t / threads);
#pragma omp critical
      s.calls.push_back(t * 100 + threads);
    }
  };
  struct RunningSum {
    const float* x;
    int64_t n;
    float sum = 0;
    std::vector<int> calls = {};
    static void run(const void* context, int t, int threads) {
      auto& s = *static_cast<RunningSum*>(const_cast<void*>(context));
      for (int64_t i = s.n * t / threads; i < s.n * (t + 1) / threads; ++i) s.sum += s.x[i];
#pragma omp critical
      s.calls.push_back(t * 100 + threads);
    }
  };
  auto in_thread_order = [](const std::vector<int>& calls) {
    const int threads = static_cast<int>(calls.size());
    REQUIRE(threads >= 1);
    for (int t = 0; t < threads; ++t) CHECK(calls[t] == t * 100 + threads);
  };
  auto once_per_thread = [&](std::vector<int> calls) {
    std::sort(calls.begin(), calls.end());
    in_thread_order(calls);
  };
  auto filled = [](int64_t n, uint64_t seed) {
    std::vector<float> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(value(seed + i));
    return v;
  };
  const float nan = std::nanf("");
  for_kernels_and_threads({1, 2, 3}, [&] {
    for (const Problem& p : {Problem{1, 128, 128, 2048, false, false}, Problem{1, 300, 64, 200, false, false},
                             Problem{1, 3, 5, 7, false, false}, Problem{4, 37, 29, 71, false, false}}) {
      CAPTURE(describe(p));
      const std::vector<float> a = filled(p.batch * p.M * p.K, 1), b = filled(p.K * p.N, 7);
      std::vector<int64_t> a_off, b_off(p.batch, 0);
      for (int64_t q = 0; q < p.batch; ++q) a_off.push_back(q * p.M * p.K);
      std::vector<float> expected(p.batch * p.M * p.N), late_a(a.size(), nan), c(expected.size()), seen(c.size());
      gemm_cpu<float>(expected.data(), {a.data(), a_off.data(), p.K, false}, {b.data(), b_off.data(), p.N, false},
                      p.batch, p.M, p.N, p.K);
      SliceCopy fill{late_a.data(), a.data(), std::ssize(a)}, copy{seen.data(), c.data(), std::ssize(c)};
      RunningSum chain{late_a.data(), std::ssize(a)};
      const GemmSideWork side[] = {{SliceCopy::run, &copy, GemmPhase::after},
                                   {RunningSum::run, &chain, GemmPhase::chain},
                                   {SliceCopy::run, &fill, GemmPhase::before}};
      gemm_cpu<float>(c.data(), {late_a.data(), a_off.data(), p.K, false}, {b.data(), b_off.data(), p.N, false},
                      p.batch, p.M, p.N, p.K, nullptr, side);
      CHECK(std::memcmp(c.data(), expected.data(), c.size() * sizeof(float)) == 0);
      CHECK(std::memcmp(seen.data(), expected.data(), c.size() * sizeof(float)) == 0);
      CHECK(chain.sum == std::accumulate(a.begin(), a.end(), 0.0f));
      for (const SliceCopy* work : {&fill, &copy}) once_per_thread(work->calls);
      in_thread_order(chain.calls);
    }
    // a group: the toy step's dweight (a depth split) and a row split, both operands a written before
    const Problem dw{1, 128, 128, 2048, false, false}, dx{1, 300, 64, 200, false, false};
    const std::vector<float> a0 = filled(dw.M * dw.K, 3), a1 = filled(dx.M * dx.K, 4), b0 = filled(dw.K * dw.N, 5),
                             b1 = filled(dx.K * dx.N, 6);
    const int64_t zero = 0;
    std::vector<float> e0(dw.M * dw.N), e1(dx.M * dx.N), late0(a0.size(), nan), late1(a1.size(), nan);
    std::vector<float> c0(e0.size()), c1(e1.size()), seen(e1.size());
    gemm_cpu<float>(e0.data(), {a0.data(), &zero, dw.K, false}, {b0.data(), &zero, dw.N, false}, 1, dw.M, dw.N, dw.K);
    gemm_cpu<float>(e1.data(), {a1.data(), &zero, dx.K, false}, {b1.data(), &zero, dx.N, false}, 1, dx.M, dx.N, dx.K);
    SliceCopy fill0{late0.data(), a0.data(), std::ssize(a0)}, fill1{late1.data(), a1.data(), std::ssize(a1)};
    SliceCopy copy{seen.data(), c1.data(), std::ssize(c1)};
    const GemmSideWork side[] = {{SliceCopy::run, &fill0, GemmPhase::before},
                                 {SliceCopy::run, &copy, GemmPhase::after},
                                 {SliceCopy::run, &fill1, GemmPhase::before}};
    const std::vector<GemmProduct<float>> group{
        {c0.data(), {late0.data(), &zero, dw.K, false}, {b0.data(), &zero, dw.N, false}, dw.M, dw.N, dw.K, nullptr,
         false},
        {c1.data(), {late1.data(), &zero, dx.K, false}, {b1.data(), &zero, dx.N, false}, dx.M, dx.N, dx.K, nullptr,
         false}};
    gemm_cpu_group<float>(group, side);
    CHECK(std::memcmp(c0.data(), e0.data(), c0.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(c1.data(), e1.data(), c1.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(seen.data(), e1.data(), c1.size() * sizeof(float)) == 0);
    for (const SliceCopy* work : {&fill0, &fill1, &copy}) once_per_thread(work->calls);
  });
}
