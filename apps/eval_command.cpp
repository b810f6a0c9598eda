// tapegrad eval: a checkpoint's loss and accuracy on its task's validation set, and a few of
// its answers side by side with the targets.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/error.h"
#include "core/grad_mode.h"
#include "data/dataloader.h"
#include "data/vocab.h"
#include "ops/max/max.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/task_data.h"
#include "train/trainer.h"

namespace tg::cli {

namespace {

struct EvalArgs {
  std::string checkpoint;
  std::string data;
  int64_t batches = 0;
  int64_t show = 3;
  int threads = 0;
  bool composed = false;
};

// "input   3 1 2 <sep> <mask> <mask> <mask>" / "target  2 1 3" / "model   2 1 3  ok"
void show_examples(train::TransformerModel& model, const train::TaskData& d, int64_t count, std::FILE* out) {
  NoGradGuard no_grad;
  for (int64_t i = 0; i < std::min(count, d.val->size()); ++i) {
    const data::Example ex = d.val->get(i);
    data::Batch b = data::collate({ex});
    const std::vector<int64_t> pred = max_with_indices(model.forward(b.inputs, b.padding_mask), -1).indices.to_vector<int64_t>();
    // Text (the LM) reads best as it is, with only line breaks shown; tokens are escaped and spaced.
    const auto show = [&](const data::Vocab& vocab, int64_t id) {
      const std::string& token = vocab.token(id);
      return d.causal ? (token == "\n" ? std::string("\\n") : token) : data::escape_token(token);
    };
    std::vector<std::string> in, target, got;
    bool right = true;
    for (size_t t = 0; t < ex.input.size(); ++t) {
      in.push_back(show(d.input_vocab, ex.input[t]));
      if (ex.target[t] == data::kIgnoreIndex) continue;
      target.push_back(show(d.output_vocab, ex.target[t]));
      got.push_back(show(d.output_vocab, pred[t]));
      right = right && pred[t] == ex.target[t];
    }
    const char* sep = d.causal ? "" : " ";
    fmt::print(out, "  input   {}\n  target  {}\n  model   {}   {}\n", fmt::join(in, sep), fmt::join(target, sep),
               fmt::join(got, sep), right ? "right" : "WRONG");
  }
}

void run_eval(const EvalArgs& args, Io& io) {
  if (io.parse_only) return;
  set_threads(args.threads);
  const std::filesystem::path file = train::checkpoint_file(args.checkpoint);
  io.activity = "loading " + file.string();
  const train::Checkpoint c = train::load_checkpoint(file);
  train::TrainConfig config = c.config;
  if (!args.data.empty()) {
    if (config.task != "lm" && config.task != "file")
      throw CLI::ValidationError("--data", fmt::format("{} was trained on task {}, which reads no data file",
                                                       file.string(), config.task));
    config.data = args.data;
  }
  const train::TaskData d = train::make_task_data(config);
  if (train::model_config(config, d) != c.model_config)
    throw Error("eval", fmt::format("{}: the model does not fit the data of task {}{} (its vocabulary or length "
                                    "differs from the training data's)", file.string(), config.task,
                                    config.data.empty() ? "" : " on " + config.data));
  io.activity = fmt::format("evaluating {} (batches of {})", file.string(), config.batch_size);
  auto model = train::load_model(c);
  model->set_composed(args.composed);
  data::DataLoader loader(d.val, {.batch_size = config.batch_size, .shuffle = false});
  const train::EvalMetrics m = train::evaluate(*model, loader, args.batches);
  fmt::print(io.out, "eval: {} (task {}, step {}, {} path)\n", file.string(), config.task, c.step,
             args.composed ? "composed" : "fused");
  fmt::print(io.out, "validation set, {} sequences: loss {:.4f}, token accuracy {:.4f}, exact match {:.4f} ({:.2f} s)\n",
             m.sequences, m.loss, m.token_accuracy, m.exact_match, m.ms / 1e3);
  if (args.show > 0) {
    fmt::print(io.out, "first {} validation examples:\n", std::min(args.show, d.val->size()));
    show_examples(*model, d, args.show, io.out);
  }
}

}  // namespace

void add_eval_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand("eval", "Evaluate a checkpoint on its task's validation set");
  auto args = std::make_shared<EvalArgs>();
  sub->add_option("checkpoint", args->checkpoint, "a checkpoint file or a run directory")->required();
  sub->add_option("--data", args->data, "evaluate on this data file instead of the one trained on");
  sub->add_option("--batches", args->batches, "validation batches (0: all)")
      ->capture_default_str()
      ->check(integer_in(0, train::kMaxSteps));
  sub->add_option("--show", args->show, "validation examples to print with the model's answers")
      ->capture_default_str()
      ->check(integer_in(0, train::kMaxExamples));
  sub->add_option("--threads", args->threads, "OpenMP threads (0: OpenMP's default)")->check(thread_count());
  sub->add_flag("--composed", args->composed, "run the model on the composed path (every op separately, no fused "
                                              "ops): the same results to float tolerance");
  sub->callback([args, io] { run_eval(*args, *io); });
}

}  // namespace tg::cli
