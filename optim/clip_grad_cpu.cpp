#include <algorithm>
#include <cmath>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/dispatch.h"
#include "core/strided_loop.h"
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
std::vector<GradChunk> grad_chunks(const std::vector<Tensor>& grads, const char* op, int64_t& elements) {
  std::vector<GradChunk> chunks;
  elements = 0;
  for (const Tensor& grad : grads) {
    const int64_t n = grad.numel();
    dispatch_floating(grad.dtype(), op, [&](auto zero) {
      using T = decltype(zero);
      T* g = grad.data<T>();
      for (int64_t first = 0; first < n; first += kGradChunk)
        chunks.push_back({g + first, std::min(kGradChunk, n - first)});
    });
    elements += n;
  }
  return chunks;
}

// Calls f(c, g, n) on every chunk c (g: its float* or double*, n: its size), the chunks shared
// among the threads of one parallel region.
template <class F>
void for_each_chunk(const std::vector<GradChunk>& chunks, int64_t elements, F f) {
  const auto count = static_cast<int64_t>(chunks.size());
#pragma omp parallel for schedule(static) if (elements > kParallelGrain)
  for (int64_t c = 0; c < count; ++c) std::visit([&](auto* g) { f(c, g, chunks[c].size); }, chunks[c].data);
}

// sum term(g[i]) over n elements in eight running sums added at the end: an order fixed by n
// alone, which the compiler can vectorise.
template <class T, class Term>
double lane_sum(const T* g, int64_t n, Term term) {
  constexpr int64_t kLanes = 8;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += term(g[i + l]);
  for (int64_t l = 0; i < n; ++i, ++l) lanes[l] += term(g[i]);
  double sum = 0;
  for (double lane : lanes) sum += lane;
  return sum;
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
  int64_t elements = 0;
  const std::vector<GradChunk> chunks = grad_chunks(grads, "clip_grad_norm", elements);
  std::vector<double> parts(chunks.size());
  for_each_chunk(chunks, elements,
                 [&](int64_t c, const auto* g, int64_t n) { parts[c] = chunk_norm_part(g, n, norm_type); });
  double total = 0;  // the chunks' parts in order: the same bits at every thread count
  for (double part : parts) total = combine_norm_parts(total, part, norm_type == kInfNorm);
  return total;
}

void grads_scale_cpu(const std::vector<Tensor>& grads, double scale) {
  int64_t elements = 0;
  const std::vector<GradChunk> chunks = grad_chunks(grads, "clip_grad_norm", elements);
  for_each_chunk(chunks, elements, [scale](int64_t, auto* g, int64_t n) {
    const auto s = static_cast<std::remove_reference_t<decltype(*g)>>(scale);
    for (int64_t i = 0; i < n; ++i) g[i] *= s;
  });
}

void grads_clamp_cpu(const std::vector<Tensor>& grads, double clip) {
  int64_t elements = 0;
  const std::vector<GradChunk> chunks = grad_chunks(grads, "clip_grad_value", elements);
  for_each_chunk(chunks, elements, [clip](int64_t, auto* g, int64_t n) {
    const auto hi = static_cast<std::remove_reference_t<decltype(*g)>>(clip);
    for (int64_t i = 0; i < n; ++i) g[i] = g[i] > hi ? hi : (g[i] < -hi ? -hi : g[i]);  // NaN kept
  });
}

}  // namespace tg
