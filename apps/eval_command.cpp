// tapegrad eval: a checkpoint's loss and accuracy on its run's validation set, or with --data on
// every example of a file, encoded with the checkpoint's vocabularies (train/eval_set.h); a few
// of its answers beside the targets, and with --predictions every answer as JSONL.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/seq2seq_commands.h"
#include "core/error.h"
#include "core/grad_mode.h"
#include "core/io/untrusted_text.h"
#include "data/dataloader.h"
#include "data/vocab.h"
#include "ops/max/max.h"
#include "train/checkpoint.h"
#include "train/registry/registry.h"
#include "train/config.h"
#include "train/eval_set.h"
#include "train/prediction_log.h"
#include "train/run_records.h"
#include "train/seq2seq_decode.h"
#include "train/sequence_task.h"
#include "train/task_data.h"
#include "train/trainer.h"

namespace tg::cli {

namespace {

struct EvalArgs {
  std::string checkpoint;
  std::string data;
  std::string predictions;
  std::vector<std::string> ignore_tokens;
  CLI::Option* ignore_option = nullptr;
  int64_t batches = 0;
  int64_t show = 3;
  int64_t beam = 0;  // seq2seq: 0 greedy, K beam search
  CLI::Option* beam_option = nullptr;
  CLI::Option* predictions_option = nullptr;
  int threads = 0;
  bool composed = false;
};

// A seq2seq run is decoded (apps/seq2seq_commands.h); the per-position flags do not apply.
void eval_seq2seq(const EvalArgs& args, const train::Checkpoint& c, const std::filesystem::path& file, Io& io) {
  if (args.predictions_option->count() > 0)
    throw CLI::ValidationError("--predictions", "writes per-position predictions; a seq2seq run prints its decoded "
                                                "outputs with --show N");
  if (args.ignore_option->count() > 0)
    throw CLI::ValidationError("--ignore-tokens", "seq2seq runs score whole decoded outputs: no token is left out");
  run_seq2seq_eval(c, file, {.data = args.data, .beam = args.beam, .batches = args.batches, .show = args.show,
                             .composed = args.composed}, io);
}

// What the ids of a checkpoint mean, and how to print them: a text's ids (an lm run's characters
// or BPE tokens) as the text they spell, shown as it is but for controls; other tokens escaped
// and spaced.
struct Tokens {
  const data::Vocab& input;
  const data::Vocab& output;
  const data::TextTokens* text;  // null unless the ids spell a text
  std::string show(const data::Vocab& vocab, const std::vector<int64_t>& ids) const {
    if (text) return visible_text(text->decode(ids));
    std::vector<std::string> shown;
    for (int64_t id : ids) shown.push_back(visible_text(data::escape_token(vocab.token(id))));
    return fmt::format("{}", fmt::join(shown, " "));
  }
};

// "input   3 1 2 <sep> <mask> <mask> <mask>" / "target  2 1 3" / "model   2 1 3  ok"
void show_examples(train::TransformerModel& model, const data::Dataset& set, const Tokens& tokens, int64_t count,
                   std::FILE* out) {
  NoGradGuard no_grad;
  for (int64_t i = 0; i < std::min(count, set.size()); ++i) {
    const data::Example ex = set.get(i);
    data::Batch b = data::collate({ex});
    const std::vector<int64_t> pred = max_with_indices(model.forward(b.inputs, b.padding_mask), -1).indices.to_vector<int64_t>();
    std::vector<int64_t> target, got;
    for (size_t t = 0; t < ex.input.size(); ++t) {
      if (ex.target[t] == data::kIgnoreIndex) continue;
      target.push_back(ex.target[t]);
      got.push_back(pred[t]);
    }
    fmt::print(out, "  input   {}\n  target  {}\n  model   {}   {}\n", tokens.show(tokens.input, ex.input),
               tokens.show(tokens.output, target), tokens.show(tokens.output, got), got == target ? "right" : "WRONG");
  }
}

void run_eval(const EvalArgs& args, Io& io) {
  if (io.parse_only) return;
  set_threads(args.threads);
  const std::filesystem::path file = train::checkpoint_file(args.checkpoint);
  io.activity = "loading " + file.string();
  const train::Checkpoint c = train::load_checkpoint(file);
  const train::TrainConfig& config = c.config;
  if (train::arch_named(config.arch).decodes_sequences) return eval_seq2seq(args, c, file, io);
  const train::Task& task = train::task_named(config.task);
  if (!args.predictions.empty())
    train::refuse_run_record("eval", "--predictions", args.predictions, train::run_records(file, &config));
  if (args.beam_option->count() > 0)
    throw CLI::ValidationError("--beam", fmt::format("{} is a {} model of task {}: beam search decodes seq2seq runs "
                                                     "only", file.string(), config.arch, config.task));
  if (!args.data.empty() && !task.score_file)
    throw CLI::ValidationError("--data", fmt::format("{} was trained on task {}, which reads no data file",
                                                     file.string(), config.task));
  const std::vector<int64_t> unscored = train::unscored_classes(
      args.ignore_option->count() > 0 ? args.ignore_tokens : config.ignore_tokens, c.output_vocab);
  const train::EvalSet set = args.data.empty() ? train::validation_set(c, file.parent_path())
                                               : train::file_set(c, file.parent_path(), args.data);

  io.activity = fmt::format("evaluating {} (batches of {})", file.string(), config.batch_size);
  auto model = train::load_model(c);
  model->set_composed(args.composed);
  const Tokens tokens{c.input_vocab, c.output_vocab, set.text.get()};
  std::optional<train::PredictionLog> log;
  if (!args.predictions.empty())
    log.emplace(args.predictions, c.input_vocab, c.output_vocab, set.numbered_by_line, unscored);
  int64_t sequences = 0;
  const auto on_batch = [&](const data::Batch& b, const Tensor& predictions) {
    sequences += std::ssize(b.lengths);
    if (log) log->add(b, predictions);
  };
  data::DataLoader loader(set.examples, {.batch_size = config.batch_size, .shuffle = false});
  const train::EvalMetrics m = train::evaluate(
      *model, loader, {.max_batches = args.batches, .unscored_classes = unscored, .on_batch = on_batch,
                       .text_bytes = set.text ? set.text->text_bytes() : std::span<const int64_t>()});
  if (log) log->commit();
  fmt::print(io.out, "eval: {} (task {}, step {}, {} path)\n", file.string(), config.task, c.step,
             args.composed ? "composed" : "fused");
  fmt::print(io.out, "{}, {} sequences ({} tokens scored): loss {:.4f}, token accuracy {:.4f}, exact match {:.4f}{} "
                     "({:.2f} s)\n", set.name, sequences, m.scored_tokens, m.loss, m.token_accuracy, m.exact_match,
             set.text ? fmt::format(", bits per byte {:.4f}", m.bits_per_byte) : "", m.ms / 1e3);
  if (log) fmt::print(io.out, "predictions: {}\n", args.predictions);
  if (args.show > 0) {
    fmt::print(io.out, "first {} examples:\n", std::min(args.show, set.examples->size()));
    show_examples(*model, *set.examples, tokens, args.show, io.out);
  }
}

}  // namespace

void add_eval_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand(
      "eval", "Evaluate a checkpoint on its run's validation set, or on every example of a file (--data); a "
             "seq2seq run's outputs are decoded (greedy, or --beam K) and scored by exact match and token accuracy");
  auto args = std::make_shared<EvalArgs>();
  sub->add_option("checkpoint", args->checkpoint, "a checkpoint file or a run directory")->required();
  sub->add_option("--data", args->data,
                  fmt::format("score every example of this file (file and seq2seq: .tsv/.jsonl; lm: a text, or a .bin "
                              "of the run's tokenizer: at most {} windows), encoded with the checkpoint's "
                              "vocabularies; an unknown token is an error", train::kTokenFileEvalWindows));
  args->predictions_option = sub->add_option("--predictions", args->predictions, "write every example's input, target and prediction to this "
                                                      "JSONL file");
  args->ignore_option = sub->add_option("--ignore-tokens", args->ignore_tokens,
                                        "output tokens whose positions the accuracies leave out, comma-separated "
                                        "('$' or 'PAD,$'; default: the run's --ignore-tokens)")
                            ->delimiter(',')
                            ->allow_extra_args(false)
                            ->check(token_name());
  sub->add_option("--batches", args->batches, "batches to evaluate (0: all)")
      ->capture_default_str()
      ->check(integer_in(0, train::kMaxSteps));
  sub->add_option("--show", args->show, "examples to print with the model's answers")
      ->capture_default_str()
      ->check(integer_in(0, train::kMaxExamples));
  args->beam_option = sub->add_option("--beam", args->beam, "seq2seq runs: decode with beam search of this width "
                                                            "(hypotheses scored by the sum of their log-probabilities, "
                                                            "no length normalisation); without it, greedily")
                          ->check(integer_in(1, train::kMaxBeam));
  sub->add_option("--threads", args->threads, "OpenMP threads (0: OpenMP's default)")->check(thread_count());
  sub->add_flag("--composed", args->composed, "run the model on the composed path (every op separately, no fused "
                                              "ops): the same results to float tolerance");
  sub->callback([args, io] { run_eval(*args, *io); });
}

}  // namespace tg::cli
