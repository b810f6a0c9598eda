// Issue 32, items 5 and 6: a command's output appears whole or not at all. A write that fails
// half way (the disk "full": RLIMIT_FSIZE) leaves the earlier output as it was, never a
// truncated page or a new model beside an old config.json.
#include "core/output_file_test_util.h"
#include "test_util.h"
#include "train_test_util.h"

namespace tg::test {

namespace {

namespace fs = std::filesystem;

// One tiny trained run, and a directory for the outputs.
struct Outputs {
  TempDir dir{"output_atomic"};
  fs::path run = dir.path() / "run";
  Outputs() {
    REQUIRE(run_cli({"train", "--task", "copy", "--steps", "2", "--warmup", "1", "--d-model", "16", "--heads", "2",
                     "--layers", "1", "--ff", "16", "--batch-size", "8", "--val-examples", "16", "--eval-batches",
                     "1", "--out", run.string()}).status == 0);
  }
};

// `args` run with writes past `limit` bytes failing: exit 1 naming errno's text.
void fails_past(rlim_t limit, const std::vector<std::string>& args) {
  CliResult r{};
  {
    FileSizeLimit full(limit);
    r = run_cli(args);
  }
  INFO(args[0], ": ", r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find("File too large") != std::string::npos);
}

}  // namespace

TEST_CASE("a failed write leaves the earlier page, DOT file or predictions whole, and no temporary file") {
  Outputs o;
  const fs::path page = o.dir.path() / "page.html", dot = o.dir.path() / "t.dot",
                 predictions = o.dir.path() / "p.jsonl";
  for (const fs::path& file : {page, dot, predictions}) std::ofstream(file) << "the earlier output";
  fails_past(100000, {"explore", o.run.string(), "--out", page.string()});  // the page inlines KaTeX
  fails_past(1000, {"trace", "--dot", dot.string()});
  fails_past(100, {"eval", o.run.string(), "--predictions", predictions.string()});
  for (const fs::path& file : {page, dot, predictions}) CHECK(read_file(file) == "the earlier output");
  CHECK(temporaries_in(o.dir.path()).empty());
}

TEST_CASE("export replaces an earlier export whole: never new files beside old ones") {
  Outputs o;
  const fs::path out = o.dir.path() / "export";
  REQUIRE(run_cli({"export", o.run.string(), "--format", "pytorch", out.string()}).status == 0);
  const std::string model = read_file(out / "model.safetensors");
  std::ofstream(out / "tapegrad_model.py") << "the earlier export's";

  // Failing half way (the model is the first file written) leaves the earlier export.
  fails_past(1000, {"export", o.run.string(), "--format", "pytorch", out.string()});
  CHECK(read_file(out / "tapegrad_model.py") == "the earlier export's");
  CHECK(read_file(out / "model.safetensors") == model);
  CHECK(temporaries_in(o.dir.path()).empty());

  // What stood in the way of writing config.json in place (a directory) goes with the rest.
  fs::remove(out / "config.json");
  fs::create_directories(out / "config.json" / "inside");
  REQUIRE(run_cli({"export", o.run.string(), "--format", "pytorch", out.string()}).status == 0);
  CHECK(fs::is_regular_file(out / "config.json"));
  CHECK(read_file(out / "tapegrad_model.py").starts_with("\"\"\""));
  CHECK(temporaries_in(o.dir.path()).empty());
}

}  // namespace tg::test
