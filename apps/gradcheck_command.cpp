// tapegrad gradcheck: every op's derivative against central finite differences (float64): the
// backward rule (--order 1), the reference rule's own gradient (--order 2), the forward-mode
// rule (--mode fwd) and the jvp of the gradient (--mode fwd --order 2).
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/error.h"
#include "ops/op_registry.h"

namespace tg::cli {

namespace {

struct GradcheckArgs {
  std::vector<std::string> ops;  // empty: all
  bool list = false;             // print each op's summary instead of checking
  bool markdown = false;         // with list: docs/ops.md, every op's documentation
  int order = 1;                 // 1: gradients; 2: gradients of gradients
  std::string mode = "rev";      // rev: reverse mode; fwd: forward mode
};

// The check --order and --mode name.
GradcheckResult check(const OpCase& c, const GradcheckArgs& args) {
  const bool forward = args.mode == "fwd";
  if (args.order == 1) return forward ? check_forward_ad(c.fn, c.inputs(), c.options) : gradcheck(c.fn, c.inputs(), c.options);
  return forward ? check_fwd_over_rev(c.fn, c.inputs(), c.options) : gradgradcheck(c.fn, c.inputs(), c.options);
}

void run_gradcheck(const GradcheckArgs& args, Io& io) {
  for (const std::string& op : args.ops)
    if (std::none_of(op_cases().begin(), op_cases().end(), [&](const OpCase& c) { return c.op == op; }))
      throw CLI::ValidationError("ops", fmt::format("no op named \"{}\"", op));
  const auto selected = [&](const OpCase& c) {
    return args.ops.empty() || std::find(args.ops.begin(), args.ops.end(), c.op) != args.ops.end();
  };
  if (args.markdown && !args.list) throw CLI::ValidationError("--markdown", "goes with --list");
  if (args.markdown && !args.ops.empty()) throw CLI::ValidationError("--markdown", "documents every op; name none");
  if (io.parse_only) return;
  if (args.markdown) {
    fmt::print(io.out, "{}", ops_markdown());
    return;
  }
  if (args.list) {
    for (const OpCase& c : op_cases())
      if (selected(c)) fmt::print(io.out, "{:<16} {}\n", c.op, c.doc.summary);
    return;
  }
  fmt::print(io.out, "{:<14} {:>8}  {:>11}  {}\n", "op", "elements", "worst error", "result");
  int checked = 0, failed = 0;
  for (const OpCase& c : op_cases()) {
    if (!selected(c)) continue;
    const GradcheckResult r = check(c, args);
    // The reverse checks list the ops on the checked tape; forward mode records none of its own.
    const bool on_tape = args.mode == "fwd" || std::find(r.ops.begin(), r.ops.end(), c.op) != r.ops.end();
    const bool ok = r.ok && on_tape && r.checked > 0;
    std::string note;
    if (!on_tape) note = fmt::format("  ('{}' is not on the checked tape)", c.op);
    else if (!r.ok) note = "  " + r.report;
    fmt::print(io.out, "{:<14} {:>8}  {:>11.2e}  {}{}\n", c.op, r.checked, r.error, ok ? "pass" : "FAIL", note);
    ++checked, failed += ok ? 0 : 1;
  }
  fmt::print(io.out, "{} ops checked ({} mode, order {}): {} passed, {} failed\n", checked,
             args.mode == "fwd" ? "forward" : "reverse", args.order, checked - failed, failed);
  if (failed > 0) io.status = 1;
}

}  // namespace

void add_gradcheck_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand("gradcheck", "Check every op's derivatives against finite differences (float64)");
  auto args = std::make_shared<GradcheckArgs>();
  sub->add_option("ops", args->ops, "only these ops (default: all)");
  sub->add_flag("--list", args->list, "list the ops, each with a one-line summary, and check nothing");
  sub->add_flag("--markdown", args->markdown, "with --list: every op's documentation as Markdown (docs/ops.md)");
  sub->add_option("--order", args->order, "1: gradients; 2: gradients of gradients (the reference rules')")
      ->check(CLI::Range(1, 2));
  sub->add_option("--mode", args->mode, "rev: reverse mode (backward); fwd: forward mode (jvp)")
      ->check(CLI::IsMember({"rev", "fwd"}));
  sub->callback([args, io] { run_gradcheck(*args, *io); });
}

}  // namespace tg::cli
