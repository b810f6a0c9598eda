#include "ops/contiguous/contiguous.h"
#include "ops/op_registry.h"

TG_OP_CASE(contiguous) {
  return {.doc = {.summary = "x itself when contiguous, else a row-major copy",
                  .forward_text = "out = x (row-major)",
                  .forward_tex = R"(\mathrm{out} = x)",
                  .backward = {{"x",
                                "dx = grad",
                                R"(\bar{x} = \overline{\mathrm{out}})"}}},
          .inputs = [] { return std::vector<Tensor>{noncontiguous_case_input({2, 3}, 1)}; },
          .fn = [](const std::vector<Tensor>& in) { return contiguous(in[0]); }};
}
