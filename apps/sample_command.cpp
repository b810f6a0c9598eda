// tapegrad sample: text from a language model checkpoint (encoder or gpt; characters or BPE), through a
// key/value cache unless --no-cache (train/generate.h); for a seq2seq checkpoint, the decoded
// output of --prompt (greedy, or --beam K), where the sampling flags are refused.
#include <string>

#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/seq2seq_commands.h"
#include "apps/terminal_output.h"
#include "core/error.h"
#include "data/text.h"
#include "data/text_tokens.h"
#include "train/checkpoint.h"
#include "train/registry/registry.h"
#include "train/generate.h"
#include "train/seq2seq_decode.h"
#include "train/task_data.h"

namespace tg::cli {

namespace {

constexpr int64_t kMaxTokens = int64_t{1} << 20;  // characters one call generates

struct SampleArgs {
  std::string checkpoint;
  std::string prompt = "the ";
  std::string stop;
  bool no_cache = false;
  train::GenerateOptions options;
  int64_t beam = 0;                          // seq2seq: 0 greedy, K beam search
  CLI::Option* beam_option = nullptr;
  CLI::Option* prompt_option = nullptr;
  std::vector<CLI::Option*> language_model_flags;  // --tokens, --temperature, ...: not for seq2seq
  int threads = 0;
};

void sample_seq2seq(const SampleArgs& args, const train::Checkpoint& c, const std::filesystem::path& file, Io& io) {
  for (const CLI::Option* o : args.language_model_flags)
    if (o->count() > 0)
      throw CLI::ValidationError(o->get_name(), "samples a language model; a seq2seq run decodes --prompt (greedy, "
                                                "or --beam K)");
  if (args.prompt_option->count() == 0)
    throw CLI::ValidationError("--prompt", "a seq2seq run translates an input: give it, e.g. --prompt \"12+345\"");
  run_seq2seq_sample(c, file, args.prompt, args.beam, io);
}

// The ids of --prompt or --stop. A BPE run's tokens spell any text; a character model's
// characters must each be one it knows (it has no embedding for another, and never writes one).
// `verb` is what the model never does with it.
std::vector<int64_t> flag_ids(const char* flag, const std::string& text, const data::TextTokens& tokens,
                              const char* verb) {
  if (!tokens.bpe())
    for (const std::string& ch : data::utf8_chars(text, flag))
      if (!tokens.vocab().contains(ch))
        throw CLI::ValidationError(flag, fmt::format("\"{}\" has a character the model never {} (its {} characters "
                                                     "are those of its training text)", text, verb,
                                                     tokens.vocab().size() - data::kNumReserved));
  const std::vector<int32_t> ids = tokens.encode(text, flag);
  return {ids.begin(), ids.end()};
}

// The flags whose limits depend on the model, and those that only sampling reads.
void check_sampling_flags(const train::GenerateOptions& o, int64_t characters) {
  if (o.top_k > characters)
    throw CLI::ValidationError("--top-k", fmt::format("must be in [0, {}] (the model's characters; 0 = all), got {}",
                                                      characters, o.top_k));
  if (o.temperature == 0 && o.top_k > 0)
    throw CLI::ValidationError("--top-k", "restricts sampling: it needs --temperature > 0 (0 is greedy)");
  if (o.temperature == 0 && o.top_p < 1)
    throw CLI::ValidationError("--top-p", "restricts sampling: it needs --temperature > 0 (0 is greedy)");
}

void run_sample(const SampleArgs& args, Io& io) {
  if (io.parse_only) return;
  set_threads(args.threads);
  const std::filesystem::path file = train::checkpoint_file(args.checkpoint);
  io.activity = "loading " + file.string();
  const train::Checkpoint c = train::load_checkpoint(file);
  if (train::arch_named(c.config.arch).decodes_sequences) return sample_seq2seq(args, c, file, io);
  if (args.beam_option->count() > 0)
    throw CLI::ValidationError("--beam", fmt::format("{} is a language model: --beam decodes seq2seq runs only",
                                                     file.string()));
  if (!c.model_config.causal)
    throw Error("sample", fmt::format("{} was trained on task {}; sample needs a language model (train --task lm)",
                                      file.string(), c.config.task));
  const data::TextTokens tokens = train::run_text_tokens(c, file.parent_path());
  if (tokens.bpe() && !args.stop.empty())
    throw CLI::ValidationError("--stop", fmt::format("{} is a BPE model, whose tokens spell a text in more than one "
                                                     "way: --stop matches a character model's characters",
                                                     file.string()));
  train::GenerateOptions options = args.options;
  options.min_id = data::kNumReserved;  // the text's characters only, never <pad>, <unk>, ...
  options.use_cache = !args.no_cache;
  check_sampling_flags(options, c.model_config.num_classes - options.min_id);
  if (!args.stop.empty()) options.stop = flag_ids("--stop", args.stop, tokens, "writes");
  const std::vector<int64_t> prompt = flag_ids("--prompt", args.prompt, tokens, "reads");
  auto model = train::load_model(c);
  io.activity = fmt::format("generating {} tokens (--tokens)", options.max_new_tokens);
  const std::vector<int64_t> ids = train::generate(*model, prompt, options);
  fmt::print(io.out, "{}\n", text_for(io.out, tokens.decode(ids)));
}

}  // namespace

void add_sample_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand("sample", "Generate text with a language-model checkpoint (train --task lm), or "
                                                "translate --prompt with a seq2seq checkpoint");
  auto args = std::make_shared<SampleArgs>();
  sub->add_option("checkpoint", args->checkpoint, "a checkpoint file or a run directory")->required();
  args->prompt_option =
      sub->add_option("--prompt", args->prompt, "the text to continue (seq2seq: the input to translate)")
          ->capture_default_str();
  sub->add_option("--tokens", args->options.max_new_tokens, "the most characters to generate")
      ->capture_default_str()
      ->check(integer_in(0, kMaxTokens));
  sub->add_option("--temperature", args->options.temperature, "0: greedy (the likeliest character); > 0: sample")
      ->capture_default_str()
      ->check(non_negative_number());
  sub->add_option("--top-k", args->options.top_k, "sample among the k likeliest characters only (0: all)")
      ->capture_default_str()
      ->check(integer_in(0, train::kMaxVocab));
  sub->add_option("--top-p", args->options.top_p, "sample among the likeliest characters whose probabilities sum "
                                                  "to p (the nucleus; 1: all)")
      ->capture_default_str()
      ->check(probability_mass());
  sub->add_option("--seed", args->options.seed, "seeds the sampling")->capture_default_str()->check(seed_number());
  sub->add_option("--stop", args->stop, "stop once the generated text ends with this (left out of the output)");
  sub->add_flag("--no-cache", args->no_cache, "re-run the whole context for every character instead of caching "
                                              "each layer's keys and values (same text, slower)");
  for (const char* name : {"--tokens", "--temperature", "--top-k", "--top-p", "--seed", "--stop", "--no-cache"})
    args->language_model_flags.push_back(sub->get_option(name));
  args->beam_option = sub->add_option("--beam", args->beam, "seq2seq runs: decode --prompt with beam search of "
                                                            "this width (without it, greedily)")
                          ->check(integer_in(1, train::kMaxBeam));
  sub->add_option("--threads", args->threads, "OpenMP threads (0: OpenMP's default)")->check(thread_count());
  sub->callback([args, io] { run_sample(*args, *io); });
}

}  // namespace tg::cli
