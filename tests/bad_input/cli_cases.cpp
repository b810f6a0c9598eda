// Bad-input matrix rows: cli. See bad_input_case.h. The rows that need a run share one tiny
// copy-task run (two steps), made on first use and never written to by a row.
#include <filesystem>
#include <fstream>
#include <functional>

#include "bad_input/bad_input_case.h"
#include "core/factories.h"
#include "core/io/safetensors.h"
#include "nn/pytorch_interop.h"
#include "train/checkpoint.h"
#include "train/train_test_util.h"

namespace tg::test {

namespace {

struct SharedRuns {
  TempDir dir{"bad_input_cli"};
  std::string run = (dir.path() / "run").string();              // a finished copy-task run
  std::string empty = (dir.path() / "empty").string();          // a directory without a checkpoint
  std::string edited = (dir.path() / "edited").string();        // the run with trainer.step = -5
  std::string repeated = (dir.path() / "repeated").string();    // the run with a repeated input token
  std::string not_checkpoint = (dir.path() / "notes.safetensors").string();
  std::string fresh = (dir.path() / "fresh").string();          // for runs refused before they write
  std::string labelled = (dir.path() / "upper.tsv").string();   // a per-position task of a, b, c
  std::string file_run = (dir.path() / "file_run").string();    // a finished run on it
  std::string unknown = (dir.path() / "unknown.tsv").string();  // line 2 holds "d", which it never saw
  std::string too_long = (dir.path() / "long.tsv").string();    // line 1 is 4 tokens, its model's maximum 3
  std::string bad_log = (dir.path() / "bad_log").string();      // a metrics.jsonl whose line 2 is cut

  SharedRuns() {
    const auto r = cli_outcome({"train", "--task", "copy", "--steps", "2", "--warmup", "1", "--d-model", "16",
                                "--heads", "2", "--layers", "1", "--ff", "16", "--batch-size", "8", "--val-examples",
                                "16", "--eval-batches", "1", "--out", run});
    if (r != "exit 0: ") throw std::runtime_error("the shared run failed: " + r);
    std::ofstream(labelled) << "a b\tA B\nb c a\tB C A\nc\tC\na a\tA A\nb\tB\n";
    std::ofstream(unknown) << "a\tA\nb d\tB D\n";
    std::ofstream(too_long) << "a b c a\tA B C A\n";
    const auto trained = cli_outcome({"train", "--task", "file", "--data", labelled, "--val-fraction", "0.2", "--steps", "2",
                                "--warmup", "1", "--d-model", "16", "--heads", "2", "--layers", "1", "--ff", "16",
                                "--out", file_run});
    if (trained != "exit 0: ") throw std::runtime_error("the shared file run failed: " + trained);
    std::filesystem::create_directories(empty);
    std::filesystem::create_directories(bad_log);
    std::ofstream(std::filesystem::path(bad_log) / "metrics.jsonl") << R"({"type":"train","step":1,"loss":2})" << "\n"
                                                                     << R"({"type":"train","st)" << "\n";
    std::ofstream(not_checkpoint) << "these are notes, not tensors";
    const std::filesystem::path checkpoint = std::filesystem::path(run) / "checkpoint.safetensors";
    SafetensorsFile f = load_safetensors(checkpoint);
    for (auto& [name, t] : f.tensors)
      if (name == "trainer.step") t.data<int64_t>()[0] = -5;
    std::filesystem::create_directories(edited);
    save_safetensors(std::filesystem::path(edited) / "checkpoint.safetensors", f.tensors, f.metadata);
    f = load_safetensors(checkpoint);
    f.metadata["input_vocab"] = R"(["0","1","2","3","4","5","6","7","8","9","3"])";
    std::filesystem::create_directories(repeated);
    save_safetensors(std::filesystem::path(repeated) / "checkpoint.safetensors", f.tensors, f.metadata);
  }
};

const SharedRuns& runs() {
  static const SharedRuns shared;
  return shared;
}

BadInputCase row(std::string name, std::function<std::vector<std::string>()> args, std::vector<std::string> expected) {
  return {std::move(name), [args] { return cli_outcome(args()); }, std::move(expected)};
}

BadInputCase row(std::string name, std::vector<std::string> args, std::vector<std::string> expected) {
  return row(std::move(name), [args] { return args; }, std::move(expected));
}

// The shared run's weights in PyTorch's names (as export writes them), edited, saved as
// <name>.safetensors beside the run.
std::string pytorch_weights(const std::string& name, const std::function<void(NamedTensors&)>& edit) {
  const auto model = train::load_model(train::load_checkpoint(train::checkpoint_file(runs().run)));
  NamedTensors state = nn::to_pytorch_state_dict(model->state_dict());
  edit(state);
  const std::filesystem::path path = runs().dir.path() / (name + ".safetensors");
  save_safetensors(path, state);
  return path.string();
}

std::vector<std::string> import_args(const std::string& weights) {
  return {"import", runs().run, weights, "--out", runs().fresh};
}

}  // namespace

std::vector<BadInputCase> cli_cases() {
  const std::string steps_range = "[1, 1099511627776]";
  return {
      row("unknown command", {"fly"}, {"exit 2", "unknown command 'fly'"}),
      row("unknown flag", {"train", "--no-such-flag"}, {"exit 2", "--no-such-flag"}),
      row("flag without its value", {"train", "--steps"}, {"exit 2", "--steps"}),
      row("unknown task", {"train", "--task", "translate"}, {"exit 2", "--task", "translate"}),
      row("--steps past int64", {"train", "--steps", "99999999999999999999"},
          {"exit 2", "--steps", "99999999999999999999", steps_range}),
      row("--steps not an integer", {"train", "--steps", "1e3"}, {"exit 2", "--steps", "must be an integer", "1e3"}),
      row("steps * batch * accum overflows",
          {"train", "--steps", "1099511627776", "--batch-size", "1048576", "--grad-accum", "2"},
          {"exit 2", "--steps * --batch-size * --grad-accum must be <= 1099511627776", "1099511627776 * 1048576 * 2"}),
      row("--batch-size 0", {"train", "--batch-size", "0"}, {"exit 2", "--batch-size", "[1, 1048576]", "got 0"}),
      row("--seed -1", {"train", "--seed", "-1"}, {"exit 2", "--seed", "[0, 18446744073709551615]", "got -1"}),
      row("--lr inf", {"train", "--lr", "inf"}, {"exit 2", "--lr", "finite number > 0", "got inf"}),
      row("--lr nan", {"train", "--lr", "nan"}, {"exit 2", "--lr", "finite", "got nan"}),
      row("--dropout 1.5", {"train", "--dropout", "1.5"}, {"exit 2", "--dropout", "[0, 0.99]", "got 1.5"}),
      row("--d-model past the limit", {"train", "--d-model", "100000"},
          {"exit 2", "--d-model", "[1, 16384]", "got 100000"}),
      row("--threads 100000", {"train", "--threads", "100000"}, {"exit 2", "--threads", "per core", "got 100000"}),
      row("eval --threads 100000", {"eval", "x", "--threads", "100000"}, {"exit 2", "--threads", "got 100000"}),
      row("unknown device", {"train", "--device", "tpu"}, {"exit 2", "--device", "cpu, cuda or cuda:N", "got tpu"}),
      row("--warmup not below --steps", {"train", "--steps", "20", "--warmup", "20"},
          {"exit 2", "--warmup", "must be < --steps (20)", "got 20"}),
      row("--data for a synthetic task", {"train", "--task", "sort", "--data", "x.tsv"},
          {"exit 2", "--data", "task sort does not read it", "lm, file"}),
      row("--val-examples for the lm task", {"train", "--task", "lm", "--val-examples", "8"},
          {"exit 2", "--val-examples", "task lm does not read it"}),
      row("--heads not dividing --d-model",
          [] { return std::vector<std::string>{"train", "--d-model", "30", "--heads", "4", "--out", runs().fresh}; },
          {"exit 1", "d_model (30) must be a positive multiple of heads (4)"}),
      row("--min-len above --max-len",
          [] { return std::vector<std::string>{"train", "--min-len", "5", "--max-len", "3", "--out", runs().fresh}; },
          {"exit 1", "max_len must be in [5, 65536], got 3"}),
      row("eval of a missing directory", {"eval", "/no/such/run"}, {"exit 1", "/no/such/run", "no such file"}),
      row("eval of a file that is no checkpoint", [] { return std::vector<std::string>{"eval", runs().not_checkpoint}; },
          {"exit 1", "notes.safetensors", "not a readable checkpoint"}),
      row("eval --data for a synthetic task", [] { return std::vector<std::string>{"eval", runs().run, "--data", "x"}; },
          {"exit 2", "--data", "trained on task copy, which reads no data file"}),
      row("eval --batches -1", {"eval", "x", "--batches", "-1"}, {"exit 2", "--batches", "got -1"}),
      row("sample on a non-LM run", [] { return std::vector<std::string>{"sample", runs().run}; },
          {"exit 1", "trained on task copy; sample needs a language model"}),
      row("sample --tokens past the limit", {"sample", "x", "--tokens", "99999999"},
          {"exit 2", "--tokens", "[0, 1048576]", "got 99999999"}),
      row("sample --temperature nan", {"sample", "x", "--temperature", "nan"},
          {"exit 2", "--temperature", "finite", "got nan"}),
      row("trace --seed -1", {"trace", "--seed", "-1"}, {"exit 2", "--seed", "got -1"}),
      row("explore of a directory without a checkpoint", [] { return std::vector<std::string>{"explore", runs().empty}; },
          {"exit 1", "empty", "checkpoint.safetensors", "no such file"}),
      row("explore --example past the validation set",
          [] { return std::vector<std::string>{"explore", runs().run, "--example", "16"}; },
          {"exit 2", "--example", "16 is out of range", "16 examples (0 to 15)"}),
      row("explore of an unknown lesson", {"explore", "--lesson", "nope"},
          {"exit 2", "--lesson", "no lesson is called 'nope'", "attention_head"}),
      row("explore of nothing", {"explore"}, {"exit 2", "exactly one of RUN_DIR", "--lesson", "--trace"}),
      row("lesson --set without a lesson", {"lesson", "--set", "x[0]=1"},
          {"exit 2", "--set", "changes a lesson's inputs: name the lesson too"}),
      row("lesson --set not of the form", {"lesson", "attention_head", "--set", "x[0]"},
          {"exit 2", "--set", "TENSOR[INDEX]=VALUE or SETTING=VALUE"}),
      row("explore --set without a lesson", {"explore", "--trace", "--set", "x[0]=1"},
          {"exit 2", "--set", "changes a lesson's inputs: give --lesson NAME too"}),
      row("explore --set not of the form", {"explore", "--lesson", "attention_head", "--set", "x[0]"},
          {"exit 2", "--set 'x[0]'", "TENSOR[INDEX]=VALUE or SETTING=VALUE"}),
      row("explore --set of a value a setting does not take",
          {"explore", "--lesson", "attention_head", "--set", "d_k=3"},
          {"exit 1", "d_k=3: d_k takes 1, 2, 4, 8"}),
      row("explore --set past the tensor", {"explore", "--lesson", "attention_head", "--set", "Wq[16]=1"},
          {"exit 1", "Wq[16] is out of range: Wq has 16 elements (indices 0 to 15)"}),
      row("explore --set a token outside the vocabulary", {"explore", "--lesson", "attention_head", "--set", "tokens[0]=9"},
          {"exit 1", "tokens[0] = 9", "a vocabulary of 9 tokens", "0 to 8"}),
      row("explore --set of no input", {"explore", "--lesson", "attention_head", "--set", "out[0]=1"},
          {"exit 1", "no input or setting named 'out': its inputs are tokens, E, Wq, Wk, Wv; its settings T, d_k"}),
      row("explore of a lesson and the trace", {"explore", "--trace", "--lesson", "attention_head"},
          {"exit 2", "exactly one of RUN_DIR"}),
      row("explore --out into a missing directory", {"explore", "--trace", "--out", "/no/such/dir/page.html"},
          {"exit 1", "cannot write /no/such/dir/page.html", "No such file or directory"}),
      row("gradcheck of an unknown op", {"gradcheck", "no_such_op"}, {"exit 2", "no op named \"no_such_op\""}),
      row("lesson of an unknown name", {"lesson", "no_such_lesson"},
          {"exit 2", "no lesson named \"no_such_lesson\"", "attention_head, multi_head"}),
      row("experiment of an unknown name", {"experiment", "no_such"},
          {"exit 2", "no experiment named \"no_such\"", "scaling, mask, init, heads"}),
      row("experiment --steps 0", {"experiment", "heads", "--steps", "0"}, {"exit 2", "--steps", "[1, 100000]", "got 0"}),
      row("experiment --queries past the limit", {"experiment", "scaling", "--queries", "5000"},
          {"exit 2", "--queries", "[1, 4096]", "got 5000"}),
      row("experiment --svg into a missing directory", {"experiment", "mask", "--svg", "/nonexistent/dir/mask.svg"},
          {"exit 1", "cannot write /nonexistent/dir/mask.svg", "No such file or directory"}),
      row("resume of a directory without a checkpoint",
          [] { return std::vector<std::string>{"train", "--resume", runs().empty}; },
          {"exit 1", "empty", "checkpoint.safetensors", "no such file"}),
      row("fresh run into a directory holding a run", [] { return std::vector<std::string>{"train", "--out", runs().run}; },
          {"exit 2", "--out", "already holds a run", "--resume " + runs().run, "--overwrite"}),
      row("--overwrite with --resume",
          [] { return std::vector<std::string>{"train", "--resume", runs().run, "--overwrite"}; },
          {"exit 2", "--overwrite", "cannot be combined with --resume"}),
      row("--out with --resume",
          [] { return std::vector<std::string>{"train", "--resume", runs().run, "--out", runs().fresh}; },
          {"exit 2", "--out", "a resumed run writes into the directory --resume names"}),
      row("resume changing the model", [] {
            return std::vector<std::string>{"train", "--resume", runs().run, "--d-model", "32", "--steps", "4"};
          },
          {"exit 1", "differs from the checkpoint's in d_model (checkpoint 16, now 32)"}),
      row("resume of a checkpoint whose step was edited",
          [] { return std::vector<std::string>{"train", "--resume", runs().edited}; },
          {"exit 1", "edited", "trainer.step must be in [0, steps = 2], got -5"}),
      row("eval --data with a token the model never saw",
          [] { return std::vector<std::string>{"eval", runs().file_run, "--data", runs().unknown}; },
          {"exit 1", "unknown.tsv:2: input token \"d\" (position 2) is not in the model's input vocabulary"}),
      row("eval --data with a line longer than the model's maximum",
          [] { return std::vector<std::string>{"eval", runs().file_run, "--data", runs().too_long}; },
          {"exit 1", "long.tsv:1: 4 tokens, more than the model's maximum of 3"}),
      row("eval --ignore-tokens naming no output token",
          [] { return std::vector<std::string>{"eval", runs().file_run, "--ignore-tokens", "Z"}; },
          {"exit 1", "ignore_tokens: \"Z\" is not an output token of the model"}),
      row("--ignore-tokens with an empty token", {"eval", "x", "--ignore-tokens", ""},
          {"exit 2", "--ignore-tokens", "a token cannot be the empty string"}),
      row("train --val-data with a token training never saw",
          [] {
            return std::vector<std::string>{"train", "--task", "file", "--data", runs().labelled, "--val-data",
                                            runs().unknown, "--out", runs().fresh};
          },
          {"exit 1", "unknown.tsv:2: input token \"d\""}),
      row("--val-fraction 1", {"train", "--task", "file", "--val-fraction", "1"},
          {"exit 2", "--val-fraction", "must be a finite number in (0, 1)", "got 1"}),
      row("--val-fraction for a synthetic task", {"train", "--task", "copy", "--val-fraction", "0.2"},
          {"exit 2", "--val-fraction", "task copy does not read it"}),
      row("--val-data for a synthetic task", {"train", "--val-data", "v.tsv"},
          {"exit 2", "--val-data", "task reverse does not read it (tasks that do: file)"}),
      row("--steps +N without --resume", {"train", "--steps", "+5"},
          {"exit 2", "--steps", "+5 counts steps beyond a checkpoint's: it needs --resume"}),
      row("--steps +0", {"train", "--steps", "+0"}, {"exit 2", "--steps", "+N must have N an integer in", "got +0"}),
      row("--steps +N past the limit",
          [] { return std::vector<std::string>{"train", "--resume", runs().run, "--steps", "+1099511627776"}; },
          {"exit 2", "--steps", "+1099511627776 after the 2 steps done passes the limit of 1099511627776 steps"}),
      row("resume with --steps below the steps done",
          [] { return std::vector<std::string>{"train", "--resume", runs().run, "--steps", "1"}; },
          {"exit 2", "--steps", "has done 2 steps already, more than 1", "+N for N more steps"}),
      row("eval of a checkpoint with a repeated vocabulary token",
          [] { return std::vector<std::string>{"eval", runs().repeated}; },
          {"exit 1", "repeated", "input_vocab entry 10 repeats the token \"3\" (id 8)"}),
      row("report without a run directory", {"report"}, {"exit 2", "runs", "required"}),
      row("report of a missing directory", {"report", "/no/such/run"}, {"exit 1", "/no/such/run", "no such directory"}),
      row("report of a file", [] { return std::vector<std::string>{"report", runs().not_checkpoint}; },
          {"exit 1", "notes.safetensors", "not a directory"}),
      row("report of a directory that is not a run", [] { return std::vector<std::string>{"report", runs().empty}; },
          {"exit 1", "empty", "not a run directory", "metrics.jsonl"}),
      row("report of a run with a malformed metrics.jsonl",
          [] { return std::vector<std::string>{"report", runs().bad_log, "--out", runs().fresh + ".html"}; },
          {"exit 1", "bad_log/metrics.jsonl:2", "bad JSON"}),
      row("export of a missing directory", {"export", "/no/such/run", "--format", "pytorch", "out"},
          {"exit 1", "/no/such/run", "no such file"}),
      row("export --format onnx", {"export", "x", "--format", "onnx", "out"},
          {"exit 2", "--format", "onnx", "pytorch"}),
      row("export without --format", {"export", "x", "out"}, {"exit 2", "--format", "required"}),
      row("export into a file", [] { return std::vector<std::string>{"export", runs().run, "--format", "pytorch",
                                                                     runs().not_checkpoint}; },
          {"exit 1", "notes.safetensors", "exists and is not a directory"}),
      row("import of a missing file", [] { return import_args("/no/such/weights.safetensors"); },
          {"exit 1", "import", "/no/such/weights.safetensors", "no such file"}),
      row("import of a state_dict missing a tensor", [] {
            return import_args(pytorch_weights("no_head_bias", [](NamedTensors& sd) { sd.pop_back(); }));
          },
          {"exit 1", "import", "no_head_bias.safetensors", "d_model 16", "missing entries: head.bias"}),
      row("import of a state_dict with an extra tensor", [] {
            return import_args(pytorch_weights("with_pe", [](NamedTensors& sd) {
              sd.emplace_back("pos_encoding.pe", zeros({17, 16}));
            }));
          },
          {"exit 1", "import", "with_pe.safetensors", "unexpected entries: pos_encoding.pe"}),
      row("import of a state_dict with a mis-shaped tensor", [] {
            return import_args(pytorch_weights("wide_attention", [](NamedTensors& sd) {
              sd.at(1).second = zeros({96, 32});  // encoder.layers.0.self_attn.in_proj_weight of d_model 32
            }));
          },
          {"exit 1", "import", "wide_attention.safetensors", "d_model 16",
           "wrong shapes: encoder.layers.0.self_attn.in_proj_weight (expected (48,16), got (96,32))"}),
      row("import into a directory holding a run", [] {
            return std::vector<std::string>{"import", runs().run, "w.safetensors", "--out", runs().run};
          },
          {"exit 2", "--out", "already holds a run"}),
  };
}

}  // namespace tg::test
