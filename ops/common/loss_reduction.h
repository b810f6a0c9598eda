#pragma once
// How a loss turns its per-element values into its output (PyTorch's `reduction`):
//   none  the per-element losses, shaped like the target
//   mean  their mean (each loss says what it divides by, e.g. the non-ignored targets)
//   sum   their sum
namespace tg {

enum class Reduction { none, mean, sum };

constexpr const char* reduction_name(Reduction r) {
  switch (r) {
    case Reduction::none: return "none";
    case Reduction::mean: return "mean";
    case Reduction::sum: return "sum";
  }
  return "?";
}

}  // namespace tg
