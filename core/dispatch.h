#pragma once
// Runs a generic lambda with a value of the C++ type behind a dtype:
//   dispatch_floating(t.dtype(), "softmax", [&](auto zero) { using T = decltype(zero); ... });
// (No fmt here: this header is compiled by nvcc too, which cannot parse fmt's headers.)
#include <cstdint>

#include <string>

#include "core/dtype.h"
#include "core/error.h"

namespace tg {

template <class Fn>
decltype(auto) dispatch_floating(DType t, const char* op, Fn&& fn) {
  switch (t) {
    case DType::f32: return fn(float{});
    case DType::f64: return fn(double{});
    default:
      throw Error(op, "expected float32 or float64, got " + std::string(dtype_name(t)));
  }
}

template <class Fn>
decltype(auto) dispatch_all(DType t, Fn&& fn) {
  switch (t) {
    case DType::f32: return fn(float{});
    case DType::f64: return fn(double{});
    case DType::i64: return fn(int64_t{});
    case DType::b8: break;
  }
  return fn(bool{});
}

}  // namespace tg
