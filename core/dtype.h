#pragma once
// DType: the element type of a tensor. f32/f64 carry values and gradients; i64 and b8
// (bool) carry indices and masks and are never differentiated.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tg {

enum class DType : uint8_t { f32, f64, i64, b8 };

inline constexpr DType kF32 = DType::f32;
inline constexpr DType kF64 = DType::f64;
inline constexpr DType kI64 = DType::i64;
inline constexpr DType kBool = DType::b8;

constexpr size_t element_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i64: return 8;
    case DType::b8: return 1;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "float32";
    case DType::f64: return "float64";
    case DType::i64: return "int64";
    case DType::b8: return "bool";
  }
  return "?";
}

constexpr bool is_floating(DType t) { return t == DType::f32 || t == DType::f64; }

// The C++ type behind each dtype, and back.
template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<float>() { return DType::f32; }
template <> constexpr DType dtype_of<double>() { return DType::f64; }
template <> constexpr DType dtype_of<int64_t>() { return DType::i64; }
template <> constexpr DType dtype_of<bool>() { return DType::b8; }

}  // namespace tg
