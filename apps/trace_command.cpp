// tapegrad trace: the teaching walkthrough of one head of causal self-attention on 3 tokens
// (apps/attention_example.h). It prints the forward tape entry by entry with each output's
// values, then runs backward one entry at a time (BackwardStepper) with the gradients flowing
// in and out of each, and writes the tape as Graphviz DOT. Under each backward entry it prints
// the op's backward rule (from the op's record, ops/<op>/<op>_case.cpp) and, for a tensor used
// more than once, each use's contribution to its gradient and their sum.
#include <fstream>
#include <map>
#include <string>

#include <fmt/format.h>

#include "apps/attention_example.h"
#include "apps/commands.h"
#include "core/backward.h"
#include "core/error.h"
#include "core/format.h"
#include "core/tape.h"
#include "ops/op_registry.h"

namespace tg::cli {

namespace {

struct TraceArgs {
  std::string dot = "attention.dot";
  uint64_t seed = 0;
};

// Every named tensor of the example by id, to show the values behind the tape's records.
class Named {
 public:
  void operator()(const Tensor& t) { by_id_[t.id()] = t; }
  const Tensor* find(int64_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &it->second;
  }

 private:
  std::map<int64_t, Tensor> by_id_;
};

std::string label(const std::string& name, int64_t id) {
  return name.empty() ? fmt::format("tensor {}", id) : name;
}

// "    what =" and t's printout below it, indented.
void print_value(std::FILE* out, const std::string& what, const Tensor& t) {
  std::string indented;
  for (char ch : to_string(t)) indented += ch == '\n' ? std::string("\n      ") : std::string(1, ch);
  fmt::print(out, "    {} =\n      {}\n", what, indented);
}

void run_trace(const TraceArgs& args, Io& io) {
  if (io.parse_only) return;
  std::FILE* out = io.out;
  const AttentionExample ex = attention_example(args.seed);
  const Tensor &x = ex.x, &Wq = ex.Wq, &Wk = ex.Wk, &Wv = ex.Wv, &loss = ex.loss;
  Named named;
  for (const Tensor& t : {x, Wq, Wk, Wv, ex.mask}) named(t);
  for (const Tensor& t : ex.steps) named(t);

  fmt::print(out, "One head of causal self-attention on T={} tokens (C={}, head size {}); loss = mean(out^2).\n\n",
             kExampleTokens, kExampleWidth, kExampleHeadSize);
  print_value(out, "x (the input, no gradient)", x);
  for (const Tensor* w : {&Wq, &Wk, &Wv}) print_value(out, w->name() + " (a parameter)", *w);

  fmt::print(out, "\nFORWARD: the tape, one entry per op, in execution order\n");
  std::map<int64_t, int> uses;  // tensor id -> how many entries' inputs it is
  for (const auto& e : tape().entries()) {
    fmt::print(out, "\n{}\n", *e);
    for (const TensorRecord& r : e->outputs)
      if (const Tensor* t = named.find(r.id)) print_value(out, label(r.name, r.id), *t);
    for (const EntryInput& in : e->inputs) ++uses[in.record.id];
  }
  std::ofstream dot(args.dot);
  if (!(dot << tape().to_dot()))
    throw Error("trace", fmt::format("cannot write the DOT file {}", args.dot));

  fmt::print(out, "\nBACKWARD: the entries in reverse order, each turning the gradient of its output into the "
                  "gradients of its inputs\n");
  BackwardStepper stepper(loss);
  while (!stepper.done()) {
    fmt::print(out, "\n{}\n", stepper.peek());  // before step(), which releases its saved tensors
    const Entry& e = stepper.step();
    if (const OpDoc* doc = find_op_doc(e.op))
      for (const BackwardRuleDoc& rule : doc->backward) fmt::print(out, "    rule: {}\n", rule.text);
    for (size_t i = 0; i < e.outputs.size(); ++i) {
      const Tensor& g = stepper.last_output_grads()[i];
      if (!g.defined()) continue;
      const std::string name = label(e.outputs[i].name, e.outputs[i].id);
      const auto& parts = stepper.contributions(e.outputs[i].id);
      if (parts.size() > 1) {
        fmt::print(out, "    {} is used {} times: its gradient is the sum of the {} contributions\n", name,
                   parts.size(), parts.size());
        for (const GradContribution& c : parts) {
          const std::string from = c.entry < 0 ? "from the seed" : fmt::format("from #{} (input {})", c.entry, c.input);
          print_value(out, from, c.grad);
        }
      }
      print_value(out, "d" + name + (parts.size() > 1 ? " (their sum, flows in)" : " (flows in)"), g);
    }
    for (size_t i = 0; i < e.inputs.size(); ++i) {
      const EntryInput& in = e.inputs[i];
      const std::string name = in.scalar.defined() ? fmt::format("the constant {:.6g}", in.scalar.item())
                                                   : label(in.name(), in.record.id);
      const Tensor& g = stepper.last_input_grads()[i];
      if (!g.defined()) {
        fmt::print(out, "    {}: no gradient (it does not require one)\n", name);
        continue;
      }
      const int n = uses[in.record.id];
      print_value(out, "d" + name + (n > 1 ? fmt::format(" (flows out: 1 of the {} contributions that add up to d{})",
                                                         n, name)
                                           : std::string(" (flows out)")),
                  g);
    }
  }
  fmt::print(out, "\nThe parameters' accumulated gradients:\n");
  for (const Tensor* w : {&Wq, &Wk, &Wv}) print_value(out, "d" + w->name(), w->grad());
  fmt::print(out, "\nWrote the tape as Graphviz DOT to {} (render it: dot -Tsvg {} -o attention.svg)\n", args.dot,
             args.dot);
}

}  // namespace

void add_trace_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand(
      "trace", "Walk through one attention head: the forward tape with values, backward entry by entry, DOT output");
  auto args = std::make_shared<TraceArgs>();
  sub->add_option("--dot", args->dot, "where to write the tape as Graphviz DOT")->capture_default_str();
  sub->add_option("--seed", args->seed, "seeds the example's values")->capture_default_str()->check(seed_number());
  sub->callback([args, io] { run_trace(*args, *io); });
}

}  // namespace tg::cli
