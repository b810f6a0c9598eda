// tapegrad trace: the teaching walkthrough of one head of causal self-attention on 3 tokens
// (apps/attention_example.h). It prints the forward tape entry by entry with each output's
// values, then runs backward one entry at a time (BackwardStepper) with the gradients flowing
// in and out of each, and writes the tape as Graphviz DOT. Under each backward entry it prints
// the op's backward rule (TG_OP_DOC in ops/<op>/<op>.cpp) and, for a tensor used
// more than once, each use's contribution to its gradient and their sum.
#include <map>
#include <string>

#include <fmt/format.h>

#include "apps/attention_example.h"
#include "apps/backward_printout.h"
#include "apps/commands.h"
#include "core/error.h"
#include "core/format.h"
#include "core/io/output_file.h"
#include "core/tape.h"
#include "train/run_records.h"

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

std::string label(int64_t id, const std::string& name) {
  return name.empty() ? fmt::format("tensor {}", id) : name;
}

void run_trace(const TraceArgs& args, Io& io) {
  if (io.parse_only) return;
  train::refuse_run_record("trace", "--dot", args.dot);
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
  for (const auto& e : tape().entries()) {
    fmt::print(out, "\n{}\n", *e);
    for (const TensorRecord& r : e->outputs)
      if (const Tensor* t = named.find(r.id)) print_value(out, label(r.id, r.name), *t);
  }
  write_file_atomically("trace", args.dot, tape().to_dot());

  fmt::print(out, "\nBACKWARD: the entries in reverse order, each turning the gradient of its output into the "
                  "gradients of its inputs\n");
  print_backward(out, loss, label);
  fmt::print(out, "\nThe parameters' accumulated gradients:\n");
  for (const Tensor* w : {&Wq, &Wk, &Wv}) print_value(out, gradient_label(w->name()), w->grad());
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
