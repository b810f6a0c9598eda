// The registry of archs and tasks (train/registry/registry.h): each is registered once, every
// task makes its data and model with the archs it names and is refused with the others, the
// refusal naming the accepted ones; and no code outside train/registry/ tests which arch or task
// a run is by its name.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "data/grammar_corpus.h"
#include "test_util.h"
#include "train/model.h"
#include "train/registry/registry.h"
#include "train/seq2seq_model.h"
#include "train_test_util.h"

using namespace tg;
using namespace tg::train;

namespace {

doctest::Contains contains(const std::string& part) { return doctest::Contains(part.c_str()); }

// A tiny run of `task` with `arch`; task file reads a file of "1 2<TAB>2 4" lines, which is both
// a labelled file and a file of input/output pairs.
TrainConfig tiny_config_run(const Task& task, const std::string& arch, const test::TempDir& dir) {
  TrainConfig c = test::tiny_config(task.name, dir.path());
  c.arch = arch;
  if (!task.required_data.empty()) {
    std::string text;
    for (int i = 0; i < 20; ++i) text += fmt::format("{} {}\t{} {}\n", i, i + 1, 2 * i, 2 * i + 2);
    c.data = (dir.path() / "pairs.tsv").string();
    std::ofstream(c.data) << text;
    record_data_hash(c, RunDataFile::data);
  }
  return c;
}

// The model of the run `c` (its arch's class) for its data, as training builds it.
int64_t model_parameters(const TrainConfig& c) {
  if (arch_named(c.arch).decodes_sequences) {
    const Seq2SeqData d = make_seq2seq_data(c);
    const ModelConfig m{.vocab_size = d.tokenizer.size(), .num_classes = d.tokenizer.size(), .max_len = d.max_len,
                        .d_model = c.d_model, .heads = c.heads, .layers = c.layers, .ff = c.ff, .dropout = c.dropout,
                        .causal = false, .arch = c.arch, .tie_weights = c.tie_weights};
    return Seq2SeqModel(m).named_parameters().size();
  }
  const TaskData d = make_task_data(c);
  return TransformerModel(model_config(c, d)).named_parameters().size();
}

}  // namespace

TEST_CASE("registry: every arch and task is registered once, described, with the makers its archs need") {
  std::set<std::string> names;
  for (const Arch& a : archs()) {
    CHECK(names.insert("arch " + a.name).second);
    CHECK(!a.summary.empty());
    CHECK(!a.is.empty());
  }
  for (const Task& t : tasks()) {
    INFO("task ", t.name);
    CHECK(names.insert("task " + t.name).second);
    CHECK(!t.summary.empty());
    CHECK(!t.does.empty());
    CHECK(!t.archs.empty());
    for (const std::string& arch : t.archs) {
      REQUIRE(is_arch(arch));
      CHECK((arch_named(arch).decodes_sequences ? static_cast<bool>(t.pairs) : static_cast<bool>(t.data)));
    }
  }
  CHECK(archs().front().name == TrainConfig{}.arch);
  CHECK(task_named(TrainConfig{}.task).trains_with(TrainConfig{}.arch));
  // One file per arch and per task, each registered: train/registry/{archs,tasks}/<name>.cpp
  const std::filesystem::path dir = std::filesystem::path(TAPEGRAD_SOURCE_DIR) / "train" / "registry";
  for (const Arch& a : archs()) CHECK(std::filesystem::exists(dir / "archs" / (a.name + ".cpp")));
  for (const Task& t : tasks()) CHECK(std::filesystem::exists(dir / "tasks" / (t.name + ".cpp")));
  CHECK_THROWS_WITH_AS(task_named("translate"),
                       contains(fmt::format("unknown task \"translate\" ({})", one_of(task_names()))), Error);
  CHECK(one_of({"a", "b", "c"}) == "a, b or c");
}

TEST_CASE("registry: every task makes its data and model with each arch it names, and is refused with the others") {
  test::TempDir dir("registry_pairs");
  for (const Task& task : tasks())
    for (const Arch& arch : archs()) {
      INFO("task ", task.name, ", arch ", arch.name);
      const TrainConfig c = tiny_config_run(task, arch.name, dir);
      if (task.trains_with(arch.name)) {
        CHECK_NOTHROW(validate(c));
        CHECK(model_parameters(c) > 0);
        continue;
      }
      // The refusal names the field to change and the values that go with the other one.
      const std::string accepted = arch.name == TrainConfig{}.arch
                                       ? fmt::format("it needs arch {}, got {}", one_of(task.archs), arch.name)
                                       : fmt::format("it needs task {}, got task {}",
                                                     one_of(tasks_training_with(arch.name)), task.name);
      CHECK_THROWS_WITH_AS(validate(c), contains(accepted), Error);
      CHECK_THROWS_WITH_AS(make_task_data(c), contains(accepted), Error);
    }
}

// `tapegrad train` for 2 steps and `tapegrad eval` of each task with each arch it names, the
// task-specific flags given those the task reads.
TEST_CASE("registry: every task trains and evaluates from the command line with each arch it names") {
  test::TempDir dir("registry_cli");
  const std::string text = (dir.path() / "corpus.txt").string(), pairs = (dir.path() / "pairs.tsv").string();
  data::write_grammar_corpus(text, 200);
  std::string lines;
  for (int i = 0; i < 20; ++i) lines += fmt::format("{} {}\t{} {}\n", i, i + 1, 2 * i, 2 * i + 2);
  std::ofstream(pairs) << lines;
  const std::map<std::string, std::vector<std::string>> flags = {
      {"data", {"--data", "DATA"}}, {"val_data", {}}, {"val_fraction", {"--val-fraction", "0.2"}},
      {"min_len", {"--min-len", "1"}}, {"max_len", {"--max-len", "3"}}, {"modulus", {"--modulus", "7"}},
      {"block_size", {"--block-size", "8"}}, {"val_examples", {"--val-examples", "4"}}, {"tokenizer", {}},
      {"token_sep", {}}};
  for (const Task& task : tasks())
    for (const std::string& arch : task.archs) {
      INFO("task ", task.name, ", arch ", arch);
      const std::string out = (dir.path() / (task.name + "_" + arch)).string();
      std::vector<std::string> args = {"train", "--task", task.name, "--arch", arch, "--steps", "2", "--warmup", "0",
                                       "--d-model", "8", "--heads", "1", "--layers", "1", "--ff", "8",
                                       "--batch-size", "4", "--eval-every", "0", "--eval-batches", "1", "--out", out};
      for (const std::string& field : task.reads)
        for (const std::string& word : flags.at(field))
          args.push_back(word == "DATA" ? (task.required_data.empty() ? text : pairs) : word);
      const test::CliResult trained = test::run_cli(args);
      INFO(trained.err);
      CHECK(trained.status == 0);
      const test::CliResult evaluated = test::run_cli({"eval", out, "--batches", "1"});
      INFO(evaluated.err);
      CHECK(evaluated.status == 0);
    }
}

TEST_CASE("registry: the command line refuses a task with an arch it does not name, listing the accepted ones") {
  const test::CliResult r = test::run_cli({"train", "--arch", "gpt", "--task", "copy"});
  CHECK(r.status == 2);
  CHECK(test::has(r.err, fmt::format("--arch: gpt is a decoder-only language model: it needs --task {}, got task copy",
                                     one_of(tasks_training_with("gpt")))));
  const test::CliResult help = test::run_cli({"train", "--help"});
  for (const Task& t : tasks()) CHECK(test::has(help.out, t.name));
  for (const Arch& a : archs()) CHECK(test::has(help.out, a.summary));
}

TEST_CASE("registry: dropout has one limit, kMaxDropout, in the config, on the command line and in the model") {
  TrainConfig c;
  c.dropout = kMaxDropout;
  CHECK_NOTHROW(validate(c));
  c.dropout = (kMaxDropout + 1) / 2;
  CHECK_THROWS_WITH_AS(validate(c), contains(fmt::format("dropout must be a finite number in [0, {}]",
                                                                  kMaxDropout)), Error);
  const ModelConfig m{.vocab_size = 4, .num_classes = 4, .max_len = 4, .dropout = c.dropout};
  CHECK_THROWS_WITH_AS(check_model_config(m), contains(fmt::format("dropout must be in [0, {}]", kMaxDropout)),
                       Error);
  const test::CliResult r = test::run_cli({"train", "--dropout", fmt::format("{}", c.dropout)});
  CHECK(test::has(r.err, fmt::format("[0, {}]", kMaxDropout)));
}

// The string tests the registry replaces: `arch == "..."`, `task != ...`, `== "seq2seq"` and the
// like. Outside train/registry/ none is left: code asks the registered description.
TEST_CASE("registry: no code outside train/registry/ tests an arch or a task by its name") {
  const std::regex test(R"re(\b(arch|task) *[!=]=|[!=]= *"seq2seq"|is_seq2seq)re");
  const std::filesystem::path root(TAPEGRAD_SOURCE_DIR);
  std::map<std::string, int> found;
  for (const char* folder : {"train", "apps", "nn", "data", "report"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
      const std::string path = std::filesystem::relative(entry.path(), root).generic_string();
      if (path.starts_with("train/registry/") || !(path.ends_with(".cpp") || path.ends_with(".h"))) continue;
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);)
        if (std::regex_search(line, test)) {
          INFO(path, ": ", line);
          CHECK(false);
          ++found[path];
        }
    }
  CHECK(found.empty());
}

// docs/guide.md's table of tasks is the registry's: each row a task with its archs and the flags
// it reads, in the registry's order.
TEST_CASE("registry: docs/guide.md's table of tasks lists every task, its archs and its flags") {
  std::ifstream in(std::filesystem::path(TAPEGRAD_SOURCE_DIR) / "docs" / "guide.md");
  REQUIRE(in);
  const std::regex row(R"re(\| `([a-z_0-9]+)` \| ([a-z0-9, ]+) \| ([a-z, -]+) \|)re");
  std::vector<std::string> rows;
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, row)) rows.push_back(line);
  std::vector<std::string> expected;
  for (const Task& t : tasks()) {
    std::vector<std::string> flags;
    for (std::string field : t.reads) {
      std::replace(field.begin(), field.end(), '_', '-');
      flags.push_back("--" + field);
    }
    expected.push_back(fmt::format("| `{}` | {} | {} |", t.name, fmt::join(t.archs, ", "), fmt::join(flags, ", ")));
  }
  CHECK(rows == expected);
}
