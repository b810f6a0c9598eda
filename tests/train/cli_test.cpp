// The tapegrad program, run in-process: argument errors, the commands end to end, and the
// gradcheck table covering every registered op.
#include <regex>

#include "data/grammar_corpus.h"
#include "ops/op_registry.h"
#include "test_util.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::run_cli;
using tg::test::TempDir;

TEST_CASE("cli: argument errors are clear and exit with status 2") {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const Case cases[] = {
      {{}, "A subcommand is required"},
      {{"fly"}, "unknown command 'fly'"},
      {{"train", "--steps", "-5"}, "--steps: must be an integer in [1, 1099511627776], got -5"},
      {{"train", "--steps", "many"}, "--steps"},
      {{"train", "--task", "translate"}, "translate"},
      {{"train", "--dropout", "1.5"}, "--dropout"},
      {{"train", "--no-such-flag"}, "--no-such-flag"},
      {{"eval"}, "checkpoint is required"},
      {{"train", "--device", "tpu"}, "--device: must be cpu, cuda or cuda:N, got tpu"},
      {{"gradcheck", "no_such_op"}, "ops: no op named \"no_such_op\""},
  };
  for (const Case& c : cases) {
    CAPTURE(fmt::format("{}", fmt::join(c.args, " ")));
    const auto r = run_cli(c.args);
    CHECK(r.status == 2);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(r.err.find("tapegrad --help") != std::string::npos);
  }
  const auto help = run_cli({"train", "--help"});
  CHECK(help.status == 0);
  CHECK(help.out.find("--d-model") != std::string::npos);
}

TEST_CASE("cli: no --help text states a duration, which depends on the machine") {
  // "9.4-26 s", "30 s", "2 minutes": a number, maybe a range, then a unit of time.
  const std::regex duration(R"(\d+(\.\d+)?(-\d+(\.\d+)?)? ?(ms|s|sec|seconds?|min|minutes?|h|hours?)\b)");
  for (const char* command : {"", "train", "eval", "sample", "trace", "gradcheck", "report", "export", "import",
                              "lesson", "experiment", "explore"}) {
    std::vector<std::string> args;
    if (*command != '\0') args.push_back(command);
    args.push_back("--help");
    const auto help = run_cli(args);
    CAPTURE(help.out);
    REQUIRE(help.status == 0);
    std::smatch found;
    CHECK_MESSAGE(!std::regex_search(help.out, found, duration), command, " --help says ", found.str());
  }
}

TEST_CASE("cli: invalid settings and missing files fail with status 1 and say why") {
  TempDir dir("cli_errors");
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const std::string out = (dir.path() / "run").string();
  const Case cases[] = {
      {{"train", "--d-model", "30", "--heads", "4", "--out", out}, "d_model (30) must be a positive multiple of heads (4)"},
      {{"train", "--task", "file", "--out", out}, "task file needs a data file"},
      {{"train", "--task", "lm", "--data", "/no/such/text.txt", "--out", out}, "/no/such/text.txt"},
      {{"eval", out}, "no such file"},
      {{"train", "--resume", out}, "no such file"},
  };
  for (const Case& c : cases) {
    CAPTURE(fmt::format("{}", fmt::join(c.args, " ")));
    const auto r = run_cli(c.args);
    CHECK(r.status == 1);
    CHECK(r.err.starts_with("tapegrad: error: "));
    CHECK(r.err.find(c.message) != std::string::npos);
  }
}

TEST_CASE("cli: train, resume, eval and sample a tiny language model") {
  TempDir dir("cli_lm");
  const std::string out = (dir.path() / "run").string(), corpus = (dir.path() / "corpus.txt").string();
  data::write_grammar_corpus(corpus, 300);  // the built-in one (5000 sentences) takes a second to index
  const std::vector<std::string> tiny = {"--task", "lm", "--data", corpus, "--block-size", "12", "--d-model", "16", "--heads", "2",
                                         "--layers", "1", "--ff", "32", "--batch-size", "8", "--warmup", "2",
                                         "--eval-batches", "1", "--out", out};
  std::vector<std::string> args = {"train", "--steps", "4"};
  args.insert(args.end(), tiny.begin(), tiny.end());
  auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("tapegrad train: task lm") != std::string::npos);
  CHECK(r.out.find("done: 4 steps") != std::string::npos);
  CHECK(r.out.find("checkpoint: " + out) != std::string::npos);

  r = run_cli({"train", "--resume", out, "--steps", "6"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("(resumed at step 4)") != std::string::npos);
  CHECK(r.out.find("done: 2 steps") != std::string::npos);

  r = run_cli({"train", "--resume", out, "--steps", "8", "--lr", "0.1"});
  CHECK(r.status == 1);
  CHECK(r.err.find("lr (checkpoint 0.003, now 0.1)") != std::string::npos);

  r = run_cli({"eval", out, "--show", "1"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("(task lm, step 6, fused path)") != std::string::npos);
  CHECK(r.out.find("token accuracy") != std::string::npos);
  CHECK(r.out.find("  model   ") != std::string::npos);

  r = run_cli({"sample", out, "--prompt", "the ", "--tokens", "10"});
  REQUIRE(r.status == 0);
  CHECK(r.out.starts_with("the "));
  CHECK(r.out.size() == 4 + 10 + 1);  // the grammar corpus is ASCII: one byte per character, then "\n"
  const auto again = run_cli({"sample", out, "--prompt", "the ", "--tokens", "10", "--temperature", "1", "--seed", "3"});
  CHECK(again.status == 0);
  CHECK(again.out == run_cli({"sample", out, "--prompt", "the ", "--tokens", "10", "--temperature", "1", "--seed",
                              "3"}).out);
}

TEST_CASE("cli: sample refuses a model that is not a language model") {
  TempDir dir("cli_sample");
  const std::string out = (dir.path() / "run").string();
  REQUIRE(run_cli({"train", "--task", "copy", "--steps", "2", "--warmup", "1", "--d-model", "16", "--heads", "2",
                   "--layers", "1", "--ff", "16", "--eval-batches", "1", "--out", out})
              .status == 0);
  const auto r = run_cli({"sample", out});
  CHECK(r.status == 1);
  CHECK(r.err.find("was trained on task copy; sample needs a language model") != std::string::npos);
  const auto e = run_cli({"eval", out, "--batches", "1"});
  CHECK(e.status == 0);
  CHECK(e.out.find("validation set, 64 sequences") != std::string::npos);
}

TEST_CASE("cli: gradcheck passes for every registered op, and --list prints their summaries") {
  const auto r = run_cli({"gradcheck"});
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.find(fmt::format("{} ops checked (reverse mode, order 1): {} passed, 0 failed", tg::op_cases().size(),
                               tg::op_cases().size())) != std::string::npos);
  CHECK(r.out.find("FAIL") == std::string::npos);

  const auto list = run_cli({"gradcheck", "--list", "exp", "matmul"});
  CHECK(list.status == 0);
  CHECK(list.out == "exp              out = e^x\n"
                    "matmul           matrix product with broadcast batch dims (torch.matmul)\n");

  const auto one = run_cli({"gradcheck", "softmax", "matmul"});
  CHECK(one.out.find("2 ops checked (reverse mode, order 1): 2 passed") != std::string::npos);
  for (const char* mode : {"rev", "fwd"}) {  // second order, and forward mode (over reverse at order 2)
    CAPTURE(mode);
    for (const char* order : {"1", "2"}) {
      const auto higher = run_cli({"gradcheck", "--order", order, "--mode", mode, "exp", "layer_norm"});
      INFO(higher.out);
      CHECK(higher.status == 0);
      CHECK(higher.out.find(fmt::format("2 ops checked ({} mode, order {}): 2 passed",
                                        std::string(mode) == "fwd" ? "forward" : "reverse", order)) != std::string::npos);
    }
  }
  CHECK(run_cli({"gradcheck", "--order", "3"}).status == 2);

  const auto markdown = run_cli({"gradcheck", "--list", "--markdown"});
  CHECK(markdown.status == 0);
  CHECK(markdown.out == tg::ops_markdown());  // what the build writes to docs/ops.md
  CHECK(markdown.out.find("## softmax\n") != std::string::npos);
  CHECK(markdown.out.find("    dL/dx_i = out_i * (dL/dout_i - sum_k dL/dout_k out_k)\n") != std::string::npos);
  CHECK(run_cli({"gradcheck", "--markdown"}).status == 2);
  CHECK(run_cli({"gradcheck", "--list", "--markdown", "exp"}).status == 2);
}

TEST_CASE("cli: trace prints the forward tape with values, backward entry by entry, and writes DOT") {
  TempDir dir("cli_trace");
  const std::string dot = (dir.path() / "attention.dot").string();
  const auto r = run_cli({"trace", "--dot", dot});
  REQUIRE(r.status == 0);
  for (const char* expected :
       {"FORWARD", "masked_fill", "softmax", "weights =", "BACKWARD", "dL/dweights (flows in)", "dL/dWq =",
        "causal_mask: no gradient",
        "mul(q k^T (3,3), 0.5 const) -> scores (3,3)",           // a scalar's value, names set after the op
        "the constant 0.5: no gradient",                         // and in backward
        "rule: dL/dx_i = out_i * (dL/dout_i - sum_k dL/dout_k out_k)",  // softmax's backward rule
        "out is used 2 times: its gradient is the sum of the 2 contributions",  // mul(out, out)
        "dL/dout (their sum, flows in)",
        "dL/dout (flows out: 1 of the 2 contributions that add up to the gradient, from entries #"}) {
    CAPTURE(expected);
    CHECK(r.out.find(expected) != std::string::npos);
  }
  // backward runs the entries newest first: the mean (loss) before the first matmul (q)
  CHECK(r.out.rfind("mean(") > r.out.find("BACKWARD"));
  CHECK(test::read_file(dot).starts_with("digraph"));
}
