// tapegrad train: flags -> TrainConfig -> Trainer. With --resume the config comes from the
// checkpoint and only the flags given explicitly change it (the Trainer refuses changes that
// would alter the steps already taken).
#include <csignal>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/commands.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

namespace tg::cli {

namespace {

volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_interrupt(int) { interrupted = 1; }

// Ctrl-C asks the trainer to stop after the current step (and write a checkpoint) while alive.
class InterruptScope {
 public:
  InterruptScope() : previous_(std::signal(SIGINT, on_interrupt)) { interrupted = 0; }
  ~InterruptScope() { std::signal(SIGINT, previous_); }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  void (*previous_)(int);
};

// A flag bound to one TrainConfig field, so that on --resume exactly the flags given can be
// copied over the checkpoint's config.
struct Flag {
  CLI::Option* option;
  std::function<void(train::TrainConfig& to, const train::TrainConfig& from)> copy;
};

struct TrainArgs {
  train::TrainConfig config;
  std::vector<Flag> flags;
  std::string resume;
  int threads = 0;
};

template <class T>
CLI::Option* flag(CLI::App* sub, TrainArgs& args, const std::string& name, T train::TrainConfig::*field,
                  const std::string& help) {
  CLI::Option* option = sub->add_option(name, args.config.*field, help)->capture_default_str();
  args.flags.push_back({option, [field](train::TrainConfig& to, const train::TrainConfig& from) {
                          to.*field = from.*field;
                        }});
  return option;
}

int64_t parameter_count(train::TransformerModel& model) {
  int64_t n = 0;
  for (const auto& [name, t] : model.named_parameters()) n += t.numel();
  return n;
}

void run_train(const TrainArgs& args, Io& io) {
  const int threads = set_threads(args.threads);
  train::TrainConfig config = args.config;
  if (!args.resume.empty()) {
    config = train::load_checkpoint(train::checkpoint_file(args.resume)).config;
    for (const Flag& f : args.flags)
      if (f.option->count() > 0) f.copy(config, args.config);
  }
  train::Trainer trainer(config, {.console = io.out});
  if (!args.resume.empty()) trainer.resume(args.resume);

  const train::ModelConfig& m = trainer.model().config;
  fmt::print(io.out, "tapegrad train: task {}{}, {} parameters (d_model {}, {} heads, {} layers, ff {}, dropout {})\n",
             config.task, config.data.empty() ? "" : " on " + config.data, parameter_count(trainer.model()),
             m.d_model, m.heads, m.layers, m.ff, m.dropout);
  fmt::print(io.out, "  {} steps of {} x {} examples, AdamW lr {} (warmup {}, cosine), {}, {} threads, seed {}\n",
             config.steps, config.grad_accum, config.batch_size, config.lr, config.warmup, config.device, threads,
             config.seed);
  fmt::print(io.out, "  run directory {}{}\n", config.out,
             args.resume.empty() ? "" : fmt::format(" (resumed at step {})", trainer.step()));
  std::fflush(io.out);

  InterruptScope interrupt;
  trainer.stop_requested = [] { return interrupted != 0; };
  const std::clock_t cpu_start = std::clock();
  const train::FitResult r = trainer.fit();
  const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  if (r.stopped) {
    fmt::print(io.out, "interrupted at step {}/{}; checkpoint {} written. Continue with: tapegrad train --resume {}\n",
               trainer.step(), config.steps, trainer.checkpoint_path().string(), config.out);
    io.status = 130;
    return;
  }
  fmt::print(io.out, "done: {} steps in {:.1f} s ({:.1f} s of CPU time; {:.1f} ms/step, {:.0f} tokens/s)\n",
             r.steps_run, r.seconds, cpu_seconds, r.ms_per_step, r.tokens_per_s);
  fmt::print(io.out, "validation at step {}: loss {:.4f}, token accuracy {:.4f}, exact match {:.4f} ({} sequences)\n",
             r.eval.step, r.eval.loss, r.eval.token_accuracy, r.eval.exact_match, r.eval.sequences);
  fmt::print(io.out, "checkpoint: {}\n", trainer.checkpoint_path().string());
}

}  // namespace

void add_train_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand(
      "train", "Train a Transformer encoder. With no options: reverse sequences of 1-8 digits, 600 steps (9.4-26 s "
               "of CPU time, depending on the CPU), reaching 100% exact match on 512 held-out sequences");
  auto args = std::make_shared<TrainArgs>();
  using C = train::TrainConfig;
  flag(sub, *args, "--task", &C::task, "copy, reverse, sort, mod_add, lm (character LM) or file (labelled .tsv/.jsonl)")
      ->check(CLI::IsMember({"copy", "reverse", "sort", "mod_add", "lm", "file"}));
  flag(sub, *args, "--data", &C::data, "lm: a UTF-8 text file (default: the built-in grammar corpus); file: a .tsv "
                                       "or .jsonl labelled file");
  flag(sub, *args, "--min-len", &C::min_len, "copy/reverse/sort: shortest sequence")->check(positive());
  flag(sub, *args, "--max-len", &C::max_len, "copy/reverse/sort: longest sequence")->check(positive());
  flag(sub, *args, "--modulus", &C::modulus, "mod_add: the modulus")->check(CLI::Range(int64_t{2}, int64_t{1} << 40));
  flag(sub, *args, "--block-size", &C::block_size, "lm: characters per window")->check(positive());
  flag(sub, *args, "--val-examples", &C::val_examples, "copy/reverse/sort/mod_add: validation examples")
      ->check(positive());
  flag(sub, *args, "--d-model", &C::d_model, "model width")->check(positive());
  flag(sub, *args, "--heads", &C::heads, "attention heads (must divide --d-model)")->check(positive());
  flag(sub, *args, "--layers", &C::layers, "encoder layers")->check(positive());
  flag(sub, *args, "--ff", &C::ff, "feed-forward width")->check(positive());
  flag(sub, *args, "--dropout", &C::dropout, "dropout probability")->check(CLI::Range(0.0, 0.99));
  flag(sub, *args, "--steps", &C::steps, "optimizer updates")->check(positive());
  flag(sub, *args, "--batch-size", &C::batch_size, "examples per micro-batch")->check(positive());
  flag(sub, *args, "--grad-accum", &C::grad_accum, "micro-batches per update")->check(positive());
  flag(sub, *args, "--lr", &C::lr, "peak learning rate")->check(positive());
  flag(sub, *args, "--warmup", &C::warmup, "linear warmup steps (then cosine decay)")->check(non_negative());
  flag(sub, *args, "--weight-decay", &C::weight_decay, "AdamW weight decay")->check(non_negative());
  flag(sub, *args, "--clip", &C::clip, "max gradient norm (0: no clipping)")->check(non_negative());
  flag(sub, *args, "--eval-every", &C::eval_every, "steps between evaluations and checkpoints (0: at the end)")
      ->check(non_negative());
  flag(sub, *args, "--log-every", &C::log_every, "steps between log lines when not on a terminal")
      ->check(positive());
  flag(sub, *args, "--eval-batches", &C::eval_batches, "validation batches per evaluation (0: all)")
      ->check(non_negative());
  flag(sub, *args, "--device", &C::device, "cpu or cuda[:N]");
  flag(sub, *args, "--seed", &C::seed, "seeds the data, the initial weights and dropout");
  flag(sub, *args, "--out", &C::out, "run directory: checkpoint.safetensors and metrics.jsonl");
  sub->add_option("--resume", args->resume, "continue the run in this checkpoint (a file or a run directory)");
  sub->add_option("--threads", args->threads, "OpenMP threads (0: OpenMP's default)")
      ->capture_default_str()
      ->check(non_negative());
  sub->callback([args, io] { run_train(*args, *io); });
}

}  // namespace tg::cli
