#include "core/format.h"

#include <algorithm>
#include <cmath>

#include "core/copy.h"

namespace tg {

namespace {

constexpr int64_t kSummariseAbove = 1000;  // elements
constexpr int64_t kEdgeItems = 3;

struct Printer {
  std::vector<std::string> cells;  // every element, formatted, row-major
  Shape shape;
  bool summarise;
  size_t width = 1;

  // Indices of dim d to print (-1 marks the "..." gap).
  std::vector<int64_t> shown(int64_t size) const {
    std::vector<int64_t> idx;
    if (!summarise || size <= 2 * kEdgeItems) {
      for (int64_t i = 0; i < size; ++i) idx.push_back(i);
      return idx;
    }
    for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    idx.push_back(-1);
    for (int64_t i = size - kEdgeItems; i < size; ++i) idx.push_back(i);
    return idx;
  }

  void print(std::string& out, size_t d, int64_t base, size_t indent) const {
    if (d == shape.size()) {
      const std::string& s = cells[base];
      out += std::string(width - std::min(width, s.size()), ' ') + s;
      return;
    }
    int64_t stride = 1;
    for (size_t k = d + 1; k < shape.size(); ++k) stride *= shape[k];
    out += '[';
    auto idx = shown(shape[d]);
    for (size_t j = 0; j < idx.size(); ++j) {
      if (j > 0) {
        out += ',';
        out += d + 1 == shape.size() ? std::string(" ") : std::string(shape.size() - d - 1, '\n') +
                                                              std::string(indent + 1, ' ');
      }
      if (idx[j] < 0)
        out += "...";
      else
        print(out, d + 1, base + idx[j] * stride, indent + 1);
    }
    out += ']';
  }
};

// Every element as text. Integers print exactly (no trip through double); floating values
// share one format chosen from their range, as PyTorch does.
std::vector<std::string> cells_of(const Tensor& t) {
  std::vector<std::string> cells;
  if (t.dtype() == kI64) {
    for (int64_t v : t.to_vector<int64_t>()) cells.push_back(fmt::format("{}", v));
    return cells;
  }
  if (t.dtype() == kBool) {
    for (bool v : t.to_vector<bool>()) cells.push_back(v ? "True" : "False");
    return cells;
  }
  std::vector<double> values = to_dtype_copy(t, kF64).to_vector<double>();
  double max_abs = 0, min_abs = INFINITY;
  bool integral = true;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    max_abs = std::max(max_abs, std::abs(v));
    if (v != 0) min_abs = std::min(min_abs, std::abs(v));
    integral = integral && v == std::floor(v);
  }
  bool scientific = max_abs >= 1e8 || (min_abs < 1e-4 && max_abs > 0);
  const char* number_format = scientific ? "{:.4e}" : integral ? "{:.0f}." : "{:.4f}";
  for (double v : values)
    cells.push_back(std::isnan(v) ? "nan" : std::isinf(v) ? (v > 0 ? "inf" : "-inf")
                                                          : fmt::format(fmt::runtime(number_format), v));
  return cells;
}

}  // namespace

std::string to_string(const Tensor& t) {
  if (!t.defined()) return "tensor(undefined)";
  Printer p;
  p.shape = t.shape();
  p.summarise = t.numel() > kSummariseAbove;
  p.cells = cells_of(t);
  for (const auto& cell : p.cells) p.width = std::max(p.width, cell.size());

  std::string out = "tensor(";
  p.print(out, 0, 0, 7);
  std::vector<std::string> extras;
  if (t.dim() == 0 || p.summarise) extras.push_back("shape=" + shape_str(t.shape()));
  extras.push_back(fmt::format("dtype={}", dtype_name(t.dtype())));
  if (t.is_cuda()) extras.push_back("device=" + t.device().str());
  if (t.requires_grad()) extras.push_back("requires_grad=true");
  return out + ", " + fmt::format("{}", fmt::join(extras, ", ")) + ")";
}

}  // namespace tg
