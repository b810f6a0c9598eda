#include "apps/seq2seq_commands.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "apps/terminal_output.h"
#include "core/error.h"
#include "data/seq2seq_file.h"
#include "train/seq2seq_data.h"
#include "train/seq2seq_decode.h"
#include "train/seq2seq_model.h"
#include "train/seq2seq_task.h"

namespace tg::cli {

namespace {

// The pairs of `path`, read as the run reads its files, each token one the model knows (else an
// error naming the line).
std::vector<data::Seq2SeqPair> known_pairs(const std::string& path, const data::PairTokenizer& tokenizer) {
  std::vector<data::Seq2SeqPair> pairs = data::read_seq2seq_file(path, tokenizer.token_sep());
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::string where = fmt::format("{}:{}", path, i + 1);  // a blank line inside a file is an error
    train::encode_known(tokenizer, pairs[i].input, where + " input");
    train::encode_known(tokenizer, pairs[i].output, where + " output");
  }
  return pairs;
}

}  // namespace

void print_seq2seq_run(const train::Seq2SeqTask& task, const train::TrainConfig& config, int64_t parameters, Io& io) {
  const train::ModelConfig& m = task.model_config();
  const train::Seq2SeqData& d = task.data();
  fmt::print(io.out, "tapegrad train: task {}{}, arch seq2seq (encoder-decoder), {} parameters (d_model {}, {} heads, "
                     "{} encoder + {} decoder layers, ff {}, dropout {})\n",
             config.task, config.data.empty() ? "" : " on " + config.data, parameters, m.d_model, m.heads, m.layers,
             m.layers, m.ff, m.dropout);
  fmt::print(io.out, "  {} {}, up to {} positions; {} validation pairs{}\n",
             d.tokenizer.size() - data::kNumReserved, d.tokenizer.unit(), m.max_len, d.val.size(),
             d.draw ? ", a fresh training pair for every example" : fmt::format(", {} training pairs", d.train.size()));
}

void run_seq2seq_eval(const train::Checkpoint& c, const std::filesystem::path& file, const Seq2SeqEvalArgs& args,
                      Io& io) {
  const data::PairTokenizer tokenizer = train::run_pair_tokenizer(c, file.parent_path());
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

void run_seq2seq_sample(const train::Checkpoint& c, const std::filesystem::path& file, const std::string& prompt,
                        int64_t beam, Io& io) {
  const data::PairTokenizer tokenizer = train::run_pair_tokenizer(c, file.parent_path());
  if (prompt.empty()) throw CLI::ValidationError("--prompt", "a seq2seq model needs an input to translate");
  const auto tokens = std::ssize(train::encode_known(tokenizer, prompt, "--prompt"));
  if (tokens == 0) throw CLI::ValidationError("--prompt", "has no tokens (only the token separator)");
  if (tokens > c.model_config.max_len)
    throw CLI::ValidationError("--prompt", fmt::format("has {} {}; the model reads at most {}", tokens,
                                                       tokenizer.unit(), c.model_config.max_len));
  auto model = train::load_seq2seq_model(c);
  io.activity = "decoding --prompt";
  fmt::print(io.out, "{}\n", text_for(io.out, train::decode_inputs(*model, tokenizer, {prompt}, {.beam = beam})[0]));
}

}  // namespace tg::cli
