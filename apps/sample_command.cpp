// tapegrad sample: text from a character language model checkpoint.
#include <string>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/error.h"
#include "data/char_tokenizer.h"
#include "train/checkpoint.h"
#include "train/generate.h"

namespace tg::cli {

namespace {

constexpr int64_t kMaxTokens = int64_t{1} << 20;  // characters one call generates

struct SampleArgs {
  std::string checkpoint;
  std::string prompt = "the ";
  train::GenerateOptions options;
  int threads = 0;
};

void run_sample(const SampleArgs& args, Io& io) {
  if (io.parse_only) return;
  set_threads(args.threads);
  const std::filesystem::path file = train::checkpoint_file(args.checkpoint);
  io.activity = "loading " + file.string();
  const train::Checkpoint c = train::load_checkpoint(file);
  if (!c.model_config.causal)
    throw Error("sample", fmt::format("{} was trained on task {}; sample needs a language model (train --task lm)",
                                      file.string(), c.config.task));
  data::CharTokenizer tokenizer(c.input_vocab);
  auto model = train::load_model(c);
  io.activity = fmt::format("generating {} characters (--tokens)", args.options.max_new_tokens);
  train::GenerateOptions options = args.options;
  options.min_id = data::kNumReserved;  // the text's characters only, never <pad>, <unk>, ...
  const std::vector<int64_t> ids = train::generate(*model, tokenizer.encode(args.prompt), options);
  fmt::print(io.out, "{}\n", tokenizer.decode(ids));
}

}  // namespace

void add_sample_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand("sample", "Generate text with a language-model checkpoint (train --task lm)");
  auto args = std::make_shared<SampleArgs>();
  sub->add_option("checkpoint", args->checkpoint, "a checkpoint file or a run directory")->required();
  sub->add_option("--prompt", args->prompt, "the text to continue")->capture_default_str();
  sub->add_option("--tokens", args->options.max_new_tokens, "characters to generate")
      ->capture_default_str()
      ->check(integer_in(0, kMaxTokens));
  sub->add_option("--temperature", args->options.temperature, "0: greedy (the likeliest character); > 0: sample")
      ->capture_default_str()
      ->check(non_negative_number());
  sub->add_option("--seed", args->options.seed, "seeds the sampling")->capture_default_str()->check(seed_number());
  sub->add_option("--threads", args->threads, "OpenMP threads (0: OpenMP's default)")->check(thread_count());
  sub->callback([args, io] { run_sample(*args, *io); });
}

}  // namespace tg::cli
