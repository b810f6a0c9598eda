#include "ops/op_registry.h"

#include <utility>

#include "core/factories.h"

namespace tg {

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> cases = [] {
    std::vector<OpCase> all;
    for (const auto& [op, make] : op_case_list::every()) {
      OpCase c = make();
      c.op = op;
      all.push_back(std::move(c));
    }
    return all;
  }();
  return cases;
}

Tensor case_input(const Shape& shape, uint64_t seed, double low, double high) {
  Generator gen(seed);
  return rand(shape, kF64, kCPU, gen, low, high).requires_grad_();
}

Tensor noncontiguous_case_input(Shape shape, uint64_t seed) {
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  Generator gen(seed);
  Tensor base = rand(shape, kF64, kCPU, gen, -1, 1);
  Shape size = base.shape(), strides = base.strides();
  std::swap(size[size.size() - 1], size[size.size() - 2]);
  std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
  return make_view(base, size, strides, 0).requires_grad_();
}

OpCase unary_case(std::string summary, Tensor (*f)(const Tensor&), double low, double high) {
  return {.summary = std::move(summary),
          .inputs = [=] { return std::vector<Tensor>{case_input({2, 3}, 1, low, high)}; },
          .fn = [f](const std::vector<Tensor>& in) { return f(in[0]); }};
}

OpCase binary_case(std::string summary, Tensor (*f)(const Tensor&, const Tensor&), double low, double high) {
  return {.summary = std::move(summary),
          .inputs = [=] {
            return std::vector<Tensor>{case_input({2, 3}, 1, low, high), case_input({3}, 2, low, high)};
          },
          .fn = [f](const std::vector<Tensor>& in) { return f(in[0], in[1]); }};
}

}  // namespace tg
