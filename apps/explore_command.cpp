// tapegrad explore: one computation as ONE self-contained HTML page (explore/page.h): the tape
// as a list and as Graphviz's graph, every tensor as a heatmap, backward entry by entry, and
// the attention weights. Three sources:
//   tapegrad explore RUN_DIR --example N   validation example N through the trained model (with
//                                          --data F: example N of F, as eval --data reads it)
//   tapegrad explore --lesson NAME          a lesson (lessons/)
//   tapegrad explore --trace                the attention head of tapegrad trace
// A page (or --json) written into the run directory takes the run's lock (train/run_lock.h) for
// as long as the command runs: a run still training there refuses it, naming the training's pid.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/attention_example.h"
#include "apps/commands.h"
#include "core/error.h"
#include "core/io/output_file.h"
#include "core/io/untrusted_text.h"
#include "core/tape_capture.h"
#include "data/vocab.h"
#include "explore/attention_maps.h"
#include "explore/lesson_log.h"
#include "explore/model_example.h"
#include "explore/page.h"
#include "explore/recording.h"
#include "lessons/lesson.h"
#include "nn/module.h"
#include "train/checkpoint.h"
#include "train/registry/registry.h"
#include "train/config.h"
#include "train/eval_set.h"
#include "train/run_lock.h"
#include "train/run_records.h"

namespace tg::cli {

namespace {

struct ExploreArgs {
  std::string run;
  std::string data;
  int64_t example = 0;
  std::string lesson;
  std::vector<std::string> set;  // with --lesson: TENSOR[INDEX]=VALUE
  bool trace = false;
  std::string out;
  std::string json;
  uint64_t seed = 0;
};

nlohmann::json record_trace(uint64_t seed) {
  TapeCapture capture;
  const AttentionExample ex = attention_example(seed);
  const explore::LabelledWeights weights = explore::softmax_outputs(capture);  // before backward frees the tape
  nlohmann::json rec = explore::record(capture, ex.loss);
  rec["title"] = "One head of causal self-attention";
  rec["description"] = fmt::format("tapegrad trace's example: {} tokens, head size {}; loss = mean(out^2)",
                                   kExampleTokens, kExampleHeadSize);
  std::vector<std::string> tokens;
  for (int64_t t = 0; t < kExampleTokens; ++t) tokens.push_back(fmt::format("token {}", t));
  rec["attention"] = explore::attention_maps(weights, tokens);
  return rec;
}

nlohmann::json record_lesson(const std::string& name, const std::vector<std::string>& set) {
  const lessons::Lesson* lesson = lessons::find_lesson(name);
  if (lesson == nullptr)
    throw CLI::ValidationError("--lesson", fmt::format("no lesson is called '{}' (the lessons: {})", name,
                                                       lessons::lesson_names()));
  std::vector<lessons::LessonEdit> edits;
  for (const std::string& edit : set) edits.push_back(lessons::parse_lesson_edit(edit));
  nlohmann::json rec = explore::record_lesson(*lesson, std::move(edits));
  rec["title"] = "Lesson: " + lesson->title;
  rec["description"] = lesson->summary;
  return rec;
}

// The page `out` and --json must not replace a record of the run explored (`records`) or of a
// run in their own directory.
void refuse_run_records(const ExploreArgs& args, const std::filesystem::path& out,
                        const std::vector<std::filesystem::path>& records) {
  train::refuse_run_record("explore", "--out", out, records);
  if (!args.json.empty()) train::refuse_run_record("explore", "--json", args.json, records);
}

// Validation example `index` of the run through its trained model, in evaluation mode (no dropout).
nlohmann::json record_run(const ExploreArgs& args, const std::filesystem::path& out, Io& io) {
  const std::filesystem::path file = train::checkpoint_file(args.run);
  io.activity = "loading " + file.string();
  const train::Checkpoint c = train::load_checkpoint(file);
  refuse_run_records(args, out, train::run_records(file, &c.config));
  if (const train::Arch& arch = train::arch_named(c.config.arch); arch.decodes_sequences)
    throw Error("explore", fmt::format("{}: a {} ({}) run of task {}: explore steps through {} models only",
                                       file.string(), arch.name, arch.is, c.config.task,
                                       train::all_of(train::arch_names_where(&train::Arch::decodes_sequences, false))));
  // eval's examples: the run's validation set (its data read only while unchanged), or --data's.
  const train::EvalSet set = args.data.empty() ? train::validation_set(c, file.parent_path())
                                               : train::file_set(c, file.parent_path(), args.data);
  if (args.example >= set.examples->size())
    throw CLI::ValidationError("--example", fmt::format("{} is out of range: the {} has {} examples (0 to {})",
                                                        args.example, set.name, set.examples->size(),
                                                        set.examples->size() - 1));
  auto model = train::load_model(c);
  const data::Example ex = set.examples->get(args.example);
  std::vector<std::string> tokens;
  for (int64_t id : ex.input) tokens.push_back(data::escape_token(c.input_vocab.token(id)));

  io.activity = fmt::format("recording example {} of the {} of {}", args.example, set.name, file.string());
  std::vector<std::string> classes;
  for (int64_t id = 0; id < c.output_vocab.size(); ++id) classes.push_back(data::escape_token(c.output_vocab.token(id)));
  nlohmann::json rec = explore::record_model_example(*model, ex, tokens, classes);
  rec["title"] = fmt::format("{}: example {} of the {}", args.run, args.example, set.name);
  // A text's tokens as the text they spell; other tokens escaped and spaced.
  const std::string shown = set.text ? fmt::format("\"{}\"", visible_text(set.text->decode(ex.input)))
                                     : fmt::format("{}", fmt::join(tokens, " "));
  const nlohmann::json& loss = rec["loss"];  // a number, or "NaN" / "Infinity"
  rec["description"] = fmt::format("task {}, step {}, the composed path, {} tokens: {}; loss {}", c.config.task, c.step,
                                   tokens.size(), shown,
                                   loss.is_number() ? fmt::format("{:.4f}", loss.get<double>()) : loss.get<std::string>());
  return rec;
}

// Whether `file` is written into the directory `dir` (however either is named).
bool writes_into(const std::filesystem::path& file, const std::filesystem::path& dir) {
  std::error_code no_such_directory;
  const std::filesystem::path parent = file.parent_path().empty() ? "." : file.parent_path();
  return std::filesystem::equivalent(parent, dir, no_such_directory);
}

void run_explore(const ExploreArgs& args, Io& io) {
  const int sources = !args.run.empty() + !args.lesson.empty() + args.trace;
  if (sources != 1)
    throw CLI::ValidationError("explore", "give exactly one of RUN_DIR (with --example), --lesson NAME or --trace");
  if (!args.set.empty() && args.lesson.empty())
    throw CLI::ValidationError("--set", "changes a lesson's inputs: give --lesson NAME too");
  if (io.parse_only) return;
  const std::filesystem::path out =
      !args.out.empty() ? std::filesystem::path(args.out)
      : args.trace      ? std::filesystem::path("explore-trace.html")
      : !args.lesson.empty() ? std::filesystem::path("explore-" + args.lesson + ".html")
                             : std::filesystem::path(args.run) / fmt::format("explore-{}.html", args.example);
  if (args.run.empty()) refuse_run_records(args, out, {});
  std::optional<train::RunLock> lock;  // of the run directory, when the command writes into it
  if (!args.run.empty()) {
    std::filesystem::path run_dir = train::checkpoint_file(args.run).parent_path();
    if (run_dir.empty()) run_dir = ".";
    if (writes_into(out, run_dir) || (!args.json.empty() && writes_into(args.json, run_dir)))
      lock.emplace("explore", run_dir);
  }
  nlohmann::json rec = args.trace            ? record_trace(args.seed)
                       : !args.lesson.empty() ? record_lesson(args.lesson, args.set)
                                              : record_run(args, out, io);
  io.activity = "writing " + out.string();
  explore::write_page(out, rec);
  if (!args.json.empty()) write_file_atomically("explore", args.json, rec.dump());
  fmt::print(io.out, "wrote {} ({} tape entries, {} KiB): open it in a browser\n", out.string(),
             rec["entries"].size(), (std::filesystem::file_size(out) + 1023) / 1024);
}

}  // namespace

void add_explore_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand(
      "explore", "Write one self-contained HTML page to step through a computation's tape, forward and backward");
  auto args = std::make_shared<ExploreArgs>();
  sub->add_option("run", args->run, "a run directory (or checkpoint file) whose validation example to explore")
      ->check(utf8_path());
  sub->add_option("--example", args->example, "the validation example to run through the trained model")
      ->capture_default_str()
      ->check(integer_in(0, train::kMaxExamples));
  sub->add_option("--data", args->data, "with RUN_DIR: explore example N of this file (as eval --data reads it) "
                                         "instead of the run's validation set");
  sub->add_option("--lesson", args->lesson, "explore a lesson instead (tapegrad lesson lists them)");
  sub->add_option("--set", args->set, "with --lesson: change one of its inputs before it runs, TENSOR[INDEX]=VALUE "
                                     "or SETTING=VALUE (repeatable): --set x[3]=0.5 --set d_k=2")
      ->check(lesson_edit());
  sub->add_flag("--trace", args->trace, "explore tapegrad trace's attention head instead");
  sub->add_option("--seed", args->seed, "seeds --trace's values")->capture_default_str()->check(seed_number());
  sub->add_option("--out", args->out,
                  "the page to write (default: RUN_DIR/explore-N.html, explore-NAME.html or explore-trace.html)");
  sub->add_option("--json", args->json, "also write the recording the page shows, as JSON");
  sub->callback([args, io] { run_explore(*args, *io); });
}

}  // namespace tg::cli
