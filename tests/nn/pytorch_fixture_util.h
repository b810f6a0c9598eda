#pragma once
// Helpers for the tests against PyTorch's references: the committed files written by
// tests/fixtures/make_pytorch_fixtures.py (torch is not needed to run the tests).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>

#include "nn_test_util.h"

namespace tg::test {

inline std::filesystem::path pytorch_fixture(const std::string& file) {
  return std::filesystem::path(TAPEGRAD_SOURCE_DIR) / "tests" / "fixtures" / file;
}

// Compares one tensor with PyTorch's and keeps the worst difference.
inline void require_near(const std::string& what, const Tensor& ours, const Tensor& pytorch, double tolerance,
                         double& worst) {
  CAPTURE(what);
  REQUIRE(ours.defined());
  const double d = max_abs_diff(ours, pytorch);
  CHECK(d <= tolerance);
  worst = std::max(worst, d);
}

// Our parameters' gradients, converted to PyTorch's names, order and layout, against PyTorch's
// (its named_parameters() order).
inline void require_parameter_grads(const nn::Module& m, const NamedTensors& pytorch_grads, double tolerance,
                                    double& worst) {
  NamedTensors grads;
  for (const auto& [name, p] : m.named_parameters()) grads.emplace_back(name, p.grad());
  const NamedTensors ours = nn::to_pytorch_state_dict(grads);
  REQUIRE(names_of(ours) == names_of(pytorch_grads));
  for (size_t i = 0; i < ours.size(); ++i)
    require_near("d " + ours[i].first, ours[i].second, pytorch_grads[i].second, tolerance, worst);
}

// Same names in the same order, and each tensor the same dtype, shape and bytes.
inline void require_bit_equal(const NamedTensors& a, const NamedTensors& b) {
  REQUIRE(names_of(a) == names_of(b));
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(a[i].first);
    REQUIRE(a[i].second.dtype() == b[i].second.dtype());
    REQUIRE(a[i].second.shape() == b[i].second.shape());
    Tensor x = contiguous_copy(a[i].second), y = contiguous_copy(b[i].second);
    CHECK(std::memcmp(x.raw_data(), y.raw_data(), static_cast<size_t>(x.numel()) * element_size(x.dtype())) == 0);
  }
}

}  // namespace tg::test
