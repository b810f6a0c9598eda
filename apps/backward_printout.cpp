#include "apps/backward_printout.h"

#include <fmt/format.h>

#include "core/backward.h"
#include "core/format.h"
#include "core/tape.h"
#include "explore/gradient_readers.h"
#include "ops/op_registry.h"

namespace tg::cli {

void print_value(std::FILE* out, const std::string& what, const Tensor& t) {
  std::string indented;
  for (char ch : to_string(t)) indented += ch == '\n' ? std::string("\n      ") : std::string(1, ch);
  fmt::print(out, "    {} =\n      {}\n", what, indented);
}

std::string gradient_label(const std::string& name) {
  return name.find(' ') == std::string::npos ? "dL/d" + name : "dL/d(" + name + ")";
}

void print_backward(std::FILE* out, const Tensor& loss, const TensorLabel& label) {
  const explore::GradientReaders readers = explore::gradient_readers(loss);  // before backward frees the graph
  fmt::print(out, "dL/dx: the gradient of L = {} with respect to x; in a rule, out is the entry's output\n",
             loss.name().empty() ? "the loss" : loss.name());

  BackwardStepper stepper(loss);
  while (!stepper.done()) {
    fmt::print(out, "\n{}\n", stepper.peek());  // before step(), which releases its saved tensors
    const Entry& e = stepper.step();
    if (const OpDoc* doc = find_op_doc(e.op))
      for (const BackwardRuleDoc& rule : doc->backward) fmt::print(out, "    rule: {}\n", rule.text);
    for (size_t i = 0; i < e.outputs.size(); ++i) {
      const Tensor& g = stepper.last_output_grads()[i];
      if (!g.defined()) continue;
      const std::string name = label(e.outputs[i].id, e.outputs[i].name);
      const auto& parts = stepper.contributions(e.outputs[i].id);
      if (parts.size() > 1) {
        fmt::print(out, "    {} is used {} times: its gradient is the sum of the {} contributions\n", name,
                   parts.size(), parts.size());
        for (const GradContribution& c : parts) {
          const std::string from = c.entry < 0 ? "from the seed" : fmt::format("from #{} (input {})", c.entry, c.input);
          print_value(out, from, c.grad);
        }
      }
      print_value(out, gradient_label(name) + (parts.size() > 1 ? " (their sum, flows in)" : " (flows in)"), g);
    }
    for (size_t i = 0; i < e.inputs.size(); ++i) {
      const EntryInput& in = e.inputs[i];
      const std::string name = in.scalar.defined() ? "the constant " + in.scalar_str()
                                                   : label(in.record.id, in.name());
      const Tensor& g = stepper.last_input_grads()[i];
      if (!g.defined()) {
        fmt::print(out, "    {}: no gradient (it does not require one)\n", name);
        continue;
      }
      const std::string contribution = explore::contribution_text(readers, in.record.id);
      const std::string flow = contribution.empty() ? " (flows out)" : " (flows out: " + contribution + ")";
      print_value(out, gradient_label(name) + flow, g);
    }
  }
}

}  // namespace tg::cli
