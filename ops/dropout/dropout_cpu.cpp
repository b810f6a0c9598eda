#include <algorithm>
#include <cstdint>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/philox_lanes.h"
#include "ops/common/vec_math.h"
#include "ops/dropout/dropout.h"

namespace tg {

namespace {

constexpr int64_t kChunk = 16 * kPhiloxWords;  // elements per dropout_range_f32 call: 2048

// relu(v) as ops/relu has it: NaN stays NaN.
template <class T>
T relu_value(T v) {
  return !(v <= 0) ? v : T(0);
}

// count elements of a float32 dropout (element e's draw draw_at(e)): keep, out (= writes); with
// relu, of relu_dropout; with a residual (not null, no relu), of dropout_add: out = residual + the
// dropped value, in the same loop (the product goes through keep_or_zero's bit mask, so it cannot
// be contracted with the sum into a fused multiply-add: the bits of dropout, then add).
template <class DrawAt>
[[gnu::always_inline]] inline void dropout_elements(float* out, uint8_t* keep, const float* x, const float* residual,
                                                    int64_t count, DrawAt draw_at, uint32_t threshold, float scale,
                                                    bool relu) {
  if (relu) {
#pragma omp simd
    for (int64_t e = 0; e < count; ++e) {
      const float v = x[e];
      const uint8_t k = draw_at(e) >= threshold;
      keep[e] = k & (v > 0);  // a byte: 0 or 1, i.e. false or true
      out[e] = keep_or_zero(k, relu_value(v) * scale);
    }
    return;
  }
  if (residual) {
#pragma omp simd
    for (int64_t e = 0; e < count; ++e) {
      const uint8_t k = draw_at(e) >= threshold;
      keep[e] = k;
      out[e] = residual[e] + keep_or_zero(k, x[e] * scale);
    }
    return;
  }
#pragma omp simd
  for (int64_t e = 0; e < count; ++e) {
    const uint8_t k = draw_at(e) >= threshold;
    keep[e] = k;  // a byte: 0 or 1, i.e. false or true
    out[e] = keep_or_zero(k, x[e] * scale);
  }
}

// Elements [first, last) of a float32 dropout, at most kChunk of them, first a multiple of
// kChunk, p < 1 (!draw.keeps_nothing()): dropout_elements with the draw's words.
TG_VEC_CLONES void dropout_range_f32(float* out, uint8_t* keep, const float* x, const float* residual, int64_t first,
                                     int64_t last, const DropoutDraw& draw, float scale, bool relu) {
  uint32_t words[kChunk];
  const int64_t count = last - first, per_word = 32 / draw.bits;
  const int64_t word_count = (count + per_word - 1) / per_word;
  philox_words(words, (word_count + kPhiloxWords - 1) / kPhiloxWords * kPhiloxWords, draw.seed,
               draw.counter(static_cast<uint64_t>(first)));
  const auto threshold = static_cast<uint32_t>(draw.threshold);
  out += first, keep += first, x += first;
  if (residual) residual += first;
  if (draw.bits == 16) {
    const auto* halves = reinterpret_cast<const HalfWord*>(words);
    dropout_elements(out, keep, x, residual, count, [&](int64_t e) { return uint32_t{halves[e]}; }, threshold,
                     scale, relu);
  } else {
    dropout_elements(out, keep, x, residual, count, [&](int64_t e) { return words[e]; }, threshold, scale, relu);
  }
}

// out[first, last) = residual + out, out holding the dropped values: dropout_add's sum in float64,
// after each counter's dropout in the same pass. A loop of its own over the stored values, so the
// compiler cannot contract a kept element's product and the sum into one fused multiply-add.
template <class T>
[[gnu::noinline]] void add_residual(T* out, const T* residual, int64_t first, int64_t last) {
#pragma omp simd
  for (int64_t i = first; i < last; ++i) out[i] = residual[i] + out[i];
}

}  // namespace

void dropout_forward_f32_team(float* out, uint8_t* keep, const float* x, const float* residual, int64_t n,
                              const DropoutDraw& draw, float scale, bool relu) {
#pragma omp for
  for (int64_t first = 0; first < n; first += kChunk)
    dropout_range_f32(out, keep, x, residual, first, std::min(n, first + kChunk), draw, scale, relu);
}

TG_VEC_CLONES void masked_scaled_f32(float* out, const uint8_t* keep, const float* x, const float* residual,
                                     int64_t count, float scale) {
  if (!residual) {
#pragma omp simd
    for (int64_t i = 0; i < count; ++i) out[i] = keep_or_zero(keep[i], x[i] * scale);
    return;
  }
  // One loop (the product goes through keep_or_zero's bit mask, so it cannot be contracted with
  // the sum into a fused multiply-add): no narrower stores for the reads that follow to wait on.
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = residual[i] + keep_or_zero(keep[i], x[i] * scale);
}

void dropout_forward_cpu(const Tensor& out, const Tensor& keep, const Tensor& x, const DropoutDraw& draw, double scale,
                         bool relu, const Tensor& residual) {
  // out, keep, x (n), residual (n) or undefined, contiguous. One Philox call decides the
  // draw.per_counter() elements from per * c on, those of counter draw.offset + c.
  const int64_t n = x.numel();
  if (x.dtype() == kF32 && !draw.keeps_nothing()) {  // p < 1 (p == 1 takes the loop below)
    float* o = out.data<float>();
    auto* k = reinterpret_cast<uint8_t*>(keep.data<bool>());  // bytes: see mask_bytes
    const float* in = x.data<float>();
    const float* res = residual.defined() ? residual.data<float>() : nullptr;
#pragma omp parallel if (n > kParallelGrain)
    dropout_forward_f32_team(o, k, in, res, n, draw, static_cast<float>(scale), relu);
    return;
  }
  const auto per = static_cast<int64_t>(draw.per_counter());
  const int64_t counters = (n + per - 1) / per;
  dispatch_floating(x.dtype(), residual.defined() ? "dropout_add" : "dropout", [&](auto zero) {
    using T = decltype(zero);
    const T* in = x.data<T>();
    const T* res = residual.defined() ? residual.data<T>() : nullptr;
    T* o = out.data<T>();
    bool* k = keep.data<bool>();
    const T s = static_cast<T>(scale);
#pragma omp parallel for if (n > kParallelGrain)
    for (int64_t c = 0; c < counters; ++c) {
      const PhiloxBlock words = philox(draw.seed, draw.offset + static_cast<uint64_t>(c));
      for (int64_t j = 0, i = per * c; j < per && i < n; ++j, ++i) {
        const bool kept = draw.keeps(words, static_cast<uint64_t>(i));
        const T v = relu ? relu_value(in[i]) : in[i];
        k[i] = kept && (!relu || in[i] > 0);
        o[i] = kept ? v * s : T(0);
      }
      if (res) add_residual(o, res, per * c, std::min(n, per * c + per));
    }
  });
}

void dropout_backward_cpu(const Tensor& dx, const Tensor& keep, const Tensor& dout, double scale) {
  // dx, keep, dout (n) contiguous
  const int64_t n = dx.numel();
  const uint8_t* k = mask_bytes(keep.data<bool>());
  if (dx.dtype() == kF32) {  // chunks of the widest clone (an OpenMP region's own loop is baseline x86-64)
    float* d = dx.data<float>();
    const float* g = dout.data<float>();
    return for_chunks(n, kElementwiseChunk, kParallelGrain, [&](int64_t first, int64_t count) {
      masked_scaled_f32(d + first, k + first, g + first, nullptr, count, static_cast<float>(scale));
    });
  }
  dispatch_floating(dx.dtype(), "dropout", [&](auto zero) {
    using T = decltype(zero);
    T* d = dx.data<T>();
    const T* g = dout.data<T>();
    const T s = static_cast<T>(scale);
#pragma omp parallel for simd if (n > kParallelGrain)
    for (int64_t i = 0; i < n; ++i) d[i] = keep_or_zero(k[i], g[i] * s);
  });
}

}  // namespace tg
