#include <algorithm>
#include <cmath>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/vec_math.h"
#include "optim/clip_grad.h"
#include "optim/norm_term.h"

namespace tg {

namespace {

// One gradient's elements, as the type they hold.
using GradData = std::variant<float*, double*>;

// A run of at most kGradChunk elements of one gradient: the unit of work of the single parallel
// region that visits every gradient, and the unit of the norm's fixed summation order.
struct GradChunk {
  GradData data;  // the chunk's first element
  int64_t size;
};

constexpr int64_t kGradChunk = 4096;

// The chunks of `grads`, in order; throws for a gradient that is not floating point.
std::vector<GradChunk> grad_chunks(const std::vector<Tensor>& grads, const char* op) {
  std::vector<GradChunk> chunks;
  for (const Tensor& grad : grads) {
    const int64_t n = grad.numel();
    dispatch_floating(grad.dtype(), op, [&](auto zero) {
      using T = decltype(zero);
      T* g = grad.data<T>();
      for (int64_t first = 0; first < n; first += kGradChunk)
        chunks.push_back({g + first, std::min(kGradChunk, n - first)});
    });
  }
  return chunks;
}

// Calls f(c, g, n) on every chunk c (g: its float* or double*, n: its size), the chunks shared
// among the threads of one parallel region.
template <class F>
void for_each_chunk(const std::vector<GradChunk>& chunks, F f) {
  const auto count = static_cast<int64_t>(chunks.size());
  int64_t elements = 0;
  for (const GradChunk& chunk : chunks) elements += chunk.size;
#pragma omp parallel for schedule(static) if (elements > kParallelGrain)
  for (int64_t c = 0; c < count; ++c) std::visit([&](auto* g) { f(c, g, chunks[c].size); }, chunks[c].data);
}

// sum term(g[i]) over n elements, in the fixed lanes of sum_rows (ops/common/vec_math.h): an
// order set by n alone, whatever the vector width.
template <class T, class Term>
double lane_sum(const T* g, int64_t n, Term term) {
  double sum[1][1];
  sum_rows<1>(n, sum, [&](int, int64_t i) { return term(g[i]); });
  return sum[0][0];
}

// sum |g|^norm_type over a chunk (the square and the absolute value without pow), or its max |g|
// for kInfNorm, NaN if any element is NaN.
template <class T>
double chunk_norm_part(const T* g, int64_t n, double norm_type) {
  auto magnitude = [](T v) { return std::abs(static_cast<double>(v)); };
  if (norm_type == 2) return lane_sum(g, n, [&](T v) { return norm_term(magnitude(v), 2); });
  if (norm_type == 1) return lane_sum(g, n, [&](T v) { return norm_term(magnitude(v), 1); });
  if (norm_type != kInfNorm) return lane_sum(g, n, [&](T v) { return norm_term(magnitude(v), norm_type); });
  double max = 0;
  bool nan = false;  // max() would drop a NaN; it must be reported
  for (int64_t i = 0; i < n; ++i) {
    nan = nan || std::isnan(magnitude(g[i]));
    max = std::max(max, magnitude(g[i]));
  }
  return nan ? std::nan("") : max;
}

}  // namespace

double grads_norm_part_cpu(const std::vector<Tensor>& grads, double norm_type) {
  const std::vector<GradChunk> chunks = grad_chunks(grads, "clip_grad_norm");
  std::vector<double> parts(chunks.size());
  for_each_chunk(chunks, [&](int64_t c, const auto* g, int64_t n) { parts[c] = chunk_norm_part(g, n, norm_type); });
  double total = 0;  // the chunks' parts in order: the same bits at every thread count
  for (double part : parts) total = combine_norm_parts(total, part, norm_type == kInfNorm);
  return total;
}

void grads_scale_cpu(const std::vector<Tensor>& grads, double scale) {
  for_each_chunk(grad_chunks(grads, "clip_grad_norm"), [scale](int64_t, auto* g, int64_t n) {
    const auto s = static_cast<std::remove_reference_t<decltype(*g)>>(scale);
    for (int64_t i = 0; i < n; ++i) g[i] *= s;
  });
}

void grads_clamp_cpu(const std::vector<Tensor>& grads, double clip) {
  for_each_chunk(grad_chunks(grads, "clip_grad_value"), [clip](int64_t, auto* g, int64_t n) {
    const auto hi = static_cast<std::remove_reference_t<decltype(*g)>>(clip);
    for (int64_t i = 0; i < n; ++i) g[i] = g[i] > hi ? hi : (g[i] < -hi ? -hi : g[i]);  // NaN kept
  });
}

}  // namespace tg
