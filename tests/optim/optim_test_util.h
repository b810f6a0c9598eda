#pragma once
// Helpers shared by the optimizer tests.
#include <string>
#include <vector>

#include "optim/optim.h"
#include "test_util.h"

namespace tg::test {

// A named leaf parameter holding `values` (1-D unless `shape` is given), requiring grad.
inline NamedParameter param(const std::string& name, const std::vector<double>& values, const Shape& shape = {},
                            DType dtype = kF64) {
  Tensor t = tensor(values, shape, dtype);
  t.requires_grad_();
  return {name, t};
}

// Replaces p's gradient by `values` (as a backward pass from p itself would leave it).
inline void set_grad(const NamedParameter& p, const std::vector<double>& values) {
  Tensor t = p.tensor;  // a handle: zero_grad() changes the shared tensor
  t.zero_grad();
  p.tensor.backward(tensor(values, p.tensor.shape(), p.tensor.dtype()));
}

// The tensor stored under `key`; fails the test when there is none.
inline Tensor entry(const StateDict& dict, const std::string& key) {
  for (const auto& [k, t] : dict)
    if (k == key) return t;
  FAIL("no entry ", key);
  return {};
}

inline std::vector<std::string> keys(const StateDict& dict) {
  std::vector<std::string> out;
  for (const auto& [k, t] : dict) out.push_back(k);
  return out;
}

}  // namespace tg::test
