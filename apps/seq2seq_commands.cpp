#include "apps/seq2seq_commands.h"

#include <algorithm>
#include <ctime>
#include <vector>

#include <fmt/format.h>

#include "apps/fit_console.h"
#include "apps/terminal_output.h"
#include "core/error.h"
#include "data/seq2seq_file.h"
#include "report/run_page_observer.h"
#include "train/seq2seq_data.h"
#include "train/seq2seq_decode.h"
#include "train/seq2seq_model.h"
#include "train/seq2seq_trainer.h"

namespace tg::cli {

namespace {

int64_t parameter_count(train::Seq2SeqModel& model) {
  int64_t n = 0;
  for (const auto& [name, t] : model.named_parameters()) n += t.numel();
  return n;
}

// The pairs of `path`, each character one the model knows (else an error naming the line).
std::vector<data::Seq2SeqPair> known_pairs(const std::string& path, const data::CharTokenizer& tokenizer) {
  std::vector<data::Seq2SeqPair> pairs = data::read_seq2seq_file(path);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::string where = fmt::format("{}:{}", path, i + 1);  // a blank line inside a file is an error
    train::encode_known(tokenizer, pairs[i].input, where + " input");
    train::encode_known(tokenizer, pairs[i].output, where + " output");
  }
  return pairs;
}

}  // namespace

void run_seq2seq_training(const train::TrainConfig& config, const std::string& resume, int threads,
                          const std::function<bool()>& begin_training, Io& io) {
  io.activity = fmt::format("reading the data and building the seq2seq model (--d-model {}, --layers {}, --ff {})",
                            config.d_model, config.layers, config.ff);
  train::Seq2SeqTrainer trainer(config, {.console = io.out, .write_files = true, .parallel = nullptr});
  trainer.attach(report::run_page_observer(trainer));  // report.html and metrics.csv, beside each checkpoint
  if (!resume.empty()) {
    trainer.resume(resume);
    if (trainer.step() == config.steps) {
      fmt::print(io.out, "tapegrad train: {} is already at step {} of its {} steps; nothing to do (give --steps +N "
                         "for N more steps, or a larger total)\n", config.out, trainer.step(), config.steps);
      return;
    }
  }
  if (!begin_training()) return;
  const train::ModelConfig& m = trainer.model().config;
  const train::Seq2SeqData& d = trainer.data();
  fmt::print(io.out, "tapegrad train: task {}{}, arch seq2seq (encoder-decoder), {} parameters (d_model {}, {} heads, "
                     "{} encoder + {} decoder layers, ff {}, dropout {})\n",
             config.task, config.data.empty() ? "" : " on " + config.data, parameter_count(trainer.model()), m.d_model,
             m.heads, m.layers, m.layers, m.ff, m.dropout);
  fmt::print(io.out, "  {} characters, up to {} positions; {} validation pairs{}\n",
             d.tokenizer.size() - data::kNumReserved, m.max_len, d.val.size(),
             d.draw ? ", a fresh training pair for every example" : fmt::format(", {} training pairs", d.train.size()));
  fmt::print(io.out, "  {} steps of {} x {} pairs, AdamW lr {} (warmup {}, cosine), {}, {} threads, seed {}\n",
             config.steps, config.grad_accum, config.batch_size, config.lr, config.warmup, config.device, threads,
             config.seed);
  fmt::print(io.out, "  run directory {}{}\n", config.out,
             resume.empty() ? "" : fmt::format(" (resumed at step {})", trainer.step()));
  std::fflush(io.out);

  trainer.stop_requested = stop_on_signal(nullptr);
  io.activity = fmt::format("training (--batch-size {}, --d-model {})", config.batch_size, config.d_model);
  const std::clock_t cpu_start = std::clock();
  const train::FitResult r = trainer.fit();
  if (!print_fit_end(r, cpu_start, trainer.step(), config, trainer.checkpoint_path(), io)) return;
  fmt::print(io.out, "validation at step {} (greedy decoding): exact match {:.4f}, token accuracy {:.4f}, "
                     "teacher-forced loss {:.4f} ({} pairs)\n",
             r.eval.step, r.eval.exact_match, r.eval.token_accuracy, r.eval.loss, r.eval.sequences);
  fmt::print(io.out, "checkpoint: {}\n", trainer.checkpoint_path().string());
}

void run_seq2seq_eval(const train::Checkpoint& c, const std::filesystem::path& file, const Seq2SeqEvalArgs& args,
                      Io& io) {
  const data::CharTokenizer tokenizer(c.input_vocab);
  std::vector<data::Seq2SeqPair> pairs;
  std::string name;
  if (args.data.empty()) {
    train::TrainConfig config = c.config;
    config.out = file.parent_path().empty() ? "." : file.parent_path().string();  // data paths are the run's
    io.activity = "reading the validation pairs of " + file.string();
    pairs = train::make_seq2seq_data(config).val;
    name = "validation set";
  } else {
    pairs = known_pairs(args.data, tokenizer);
    name = args.data;
  }
  const int64_t batch_size = c.config.batch_size;
  if (args.batches > 0 && std::ssize(pairs) > args.batches * batch_size)
    pairs.resize(static_cast<size_t>(args.batches * batch_size));
  auto model = train::load_seq2seq_model(c);
  model->set_composed(args.composed);
  io.activity = fmt::format("decoding {} pairs ({})", pairs.size(),
                            args.beam > 0 ? fmt::format("--beam {}", args.beam) : std::string("greedy"));
  std::vector<std::string> outputs;
  const train::EvalMetrics m =
      train::evaluate_seq2seq(*model, tokenizer, pairs, {.beam = args.beam, .batch_size = batch_size}, &outputs);
  fmt::print(io.out, "eval: {} (task {}, arch seq2seq, step {}, {} path)\n", file.string(), c.config.task, c.step,
             args.composed ? "composed" : "fused");
  fmt::print(io.out, "{}, {} pairs, {}: exact match {:.4f}, token accuracy {:.4f} ({} target tokens with <eos>), "
                     "teacher-forced loss {:.4f} ({:.2f} s)\n",
             name, m.sequences,
             args.beam > 0 ? fmt::format("beam search of width {} (sum of log-probabilities)", args.beam)
                           : std::string("greedy decoding"),
             m.exact_match, m.token_accuracy, m.scored_tokens, m.loss, m.ms / 1e3);
  const int64_t shown = std::min<int64_t>(args.show, std::ssize(pairs));
  if (shown > 0) fmt::print(io.out, "first {} pairs:\n", shown);
  for (int64_t i = 0; i < shown; ++i)
    fmt::print(io.out, "  input   {}\n  target  {}\n  model   {}   {}\n", visible_text(pairs[i].input),
               visible_text(pairs[i].output), visible_text(outputs[i]),
               outputs[i] == pairs[i].output ? "right" : "WRONG");
}

void run_seq2seq_sample(const train::Checkpoint& c, const std::string& prompt, int64_t beam, Io& io) {
  const data::CharTokenizer tokenizer(c.input_vocab);
  if (prompt.empty()) throw CLI::ValidationError("--prompt", "a seq2seq model needs an input to translate");
  const auto chars = std::ssize(train::encode_known(tokenizer, prompt, "--prompt"));
  if (chars > c.model_config.max_len)
    throw CLI::ValidationError("--prompt", fmt::format("has {} characters; the model reads at most {}", chars,
                                                       c.model_config.max_len));
  auto model = train::load_seq2seq_model(c);
  io.activity = "decoding --prompt";
  fmt::print(io.out, "{}\n", text_for(io.out, train::decode_inputs(*model, tokenizer, {prompt}, {.beam = beam})[0]));
}

}  // namespace tg::cli
