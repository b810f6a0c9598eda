#pragma once
// An op's documentation, written in its rule file (ops/<op>/<op>.cpp) beside the code of its
// reference rules, the one place a reader finds the op's math:
//
//   TG_OP_DOC(exp) {
//     return {.summary = "out = e^x",
//             .forward_text = "out = e^x", .forward_tex = R"(\mathrm{out} = e^{x})",
//             .backward = {{"x", "dL/dx = dL/dout * out", R"(\dLd{x} = \dLd{\mathrm{out}} \odot \mathrm{out})"}}};
//   }
//
// The op registry (ops/op_registry.h) attaches it to the op's record, from which `tapegrad
// trace`, `tapegrad lesson`, the explorer and docs/ops.md show it; gradcheck of the reference
// rules (first and second order) keeps the code honest, and the text is reviewed beside it.
#include <string>
#include <vector>

namespace tg {

// Every formula is written twice, for two readers: `text` in plain text for the terminal and
// docs/ops.md, `tex` in LaTeX for rendered math (KaTeX) in the explorer. Both write the gradient
// of the loss L with respect to a tensor as every output of tapegrad does: `dL/dout` for the op's
// output and `dL/da` for its input a (tex: \dLd{a}, a macro the explorer defines as
// \frac{\partial L}{\partial a}):
//   forward   text "out = a * b"              tex "\mathrm{out} = a \odot b"
//   backward  text "dL/da = dL/dout * b"      tex "\dLd{a} = \dLd{\mathrm{out}} \odot b"
struct BackwardRuleDoc {
  std::string input;  // the input's name, as in the forward formula ("a", "weight")
  std::string text;   // its gradient: "dL/da = dL/dout * b"
  std::string tex;    // the same in LaTeX
};

struct OpDoc {
  std::string summary;  // one line: what the op computes
  std::string forward_text, forward_tex;  // the forward formula
  std::vector<BackwardRuleDoc> backward;  // one per differentiable input, in the op's argument order
};

}  // namespace tg

// Defines the documentation of op `name` (inside namespace tg): the function tg::op_docs::<name>,
// which the registry's generated list (ops/CMakeLists.txt) calls for the record of that name.
#define TG_OP_DOC(name)      \
  namespace op_docs {        \
  OpDoc name();              \
  }                          \
  OpDoc op_docs::name()
