// tapegrad tokenizer train|encode|decode: a byte-level BPE tokenizer learned from the user's
// corpus (data/bpe_training.h), and token id files encoded with it (data/token_id_file.h).
//   tapegrad tokenizer train book.txt --vocab-size 4096 --out tok.json
//   tapegrad tokenizer encode --tokenizer tok.json book.txt --out book.bin
//   tapegrad tokenizer decode --tokenizer tok.json book.bin --out book.txt   (the same bytes)
#include <chrono>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/io/input_file.h"
#include "core/io/output_file.h"
#include "data/bpe_file.h"
#include "data/bpe_training.h"
#include "data/token_id_file.h"

namespace tg::cli {

namespace {

struct TokenizerArgs {
  std::vector<std::string> corpus;
  int64_t vocab_size = 1024;
  std::vector<std::string> specials;
  std::string tokenizer, in, out;
};

std::string read_bytes(const std::string& path) { return InputFile("tokenizer", path).read_all(); }

void run_tokenizer_train(const TokenizerArgs& args, Io& io) {
  if (io.parse_only) return;
  io.activity = "training a BPE tokenizer";
  std::vector<std::string> texts;
  size_t bytes = 0;
  for (const std::string& path : args.corpus) bytes += texts.emplace_back(read_bytes(path)).size();
  const auto start = std::chrono::steady_clock::now();
  const data::BpeTokenizer tokenizer =
      data::train_bpe({texts.begin(), texts.end()}, {.vocab_size = args.vocab_size, .specials = args.specials});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  data::save_bpe_tokenizer(tokenizer, args.out);
  fmt::print(io.out, "tokenizer: {} merges learned from {} bytes in {:.2f} s ({:.1f} MB/s); vocabulary {} tokens "
                     "({} special) -> {}\n", tokenizer.merges().size(), bytes, seconds, bytes / 1e6 / seconds,
             tokenizer.vocab_size(), tokenizer.specials().size(), args.out);
  if (tokenizer.vocab_size() < args.vocab_size)
    fmt::print(io.out, "tokenizer: stopped before {} tokens: no pair of tokens occurs twice more\n", args.vocab_size);
}

void run_encode(const TokenizerArgs& args, Io& io) {
  if (io.parse_only) return;
  const data::BpeTokenizer tokenizer = data::load_bpe_tokenizer(args.tokenizer);
  io.activity = "encoding " + args.in;
  const std::string text = read_bytes(args.in);
  const std::vector<data::TokenId> ids = tokenizer.encode(text);
  data::write_token_id_file(args.out, ids, tokenizer.vocab_size(), data::bpe_sha256(tokenizer));
  fmt::print(io.out, "tokenizer: {} bytes -> {} tokens ({:.2f} bytes per token) -> {}\n", text.size(), ids.size(),
             ids.empty() ? 0.0 : static_cast<double>(text.size()) / static_cast<double>(ids.size()), args.out);
}

void run_decode(const TokenizerArgs& args, Io& io) {
  if (io.parse_only) return;
  const data::BpeTokenizer tokenizer = data::load_bpe_tokenizer(args.tokenizer);
  io.activity = "decoding " + args.in;
  const std::vector<data::TokenId> ids =
      data::read_token_id_file(args.in, tokenizer.vocab_size(), data::bpe_sha256(tokenizer));
  const std::string text = tokenizer.decode(ids);
  write_file_atomically("tokenizer", args.out, text);
  fmt::print(io.out, "tokenizer: {} tokens -> {} bytes -> {}\n", ids.size(), text.size(), args.out);
}

}  // namespace

void add_tokenizer_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand("tokenizer", "Learn a byte-level BPE tokenizer from a corpus; encode and decode "
                                                  "files with it");
  sub->require_subcommand(1);
  auto args = std::make_shared<TokenizerArgs>();

  CLI::App* train = sub->add_subcommand("train", "Learn the merges from one or more text files");
  train->add_option("corpus", args->corpus, "the corpus's files")->required();
  train->add_option("--vocab-size", args->vocab_size, "tokens in all: 256 bytes, the merges and the specials")
      ->check(integer_in(256, data::BpeTokenizer::kMaxVocab));
  train->add_option("--special", args->specials, "a special token's name (repeatable), never made by encoding text")
      ->check(token_name());
  train->add_option("--out", args->out, "the tokenizer file to write (tok.json)")->required()->check(utf8_path());
  train->callback([args, io] { run_tokenizer_train(*args, *io); });

  CLI::App* encode = sub->add_subcommand("encode", "Encode a file into a token id file (.bin)");
  encode->add_option("--tokenizer", args->tokenizer, "the tokenizer file")->required();
  encode->add_option("in", args->in, "the file to encode (any bytes)")->required();
  encode->add_option("--out", args->out, "the token id file to write")->required()->check(utf8_path());
  encode->callback([args, io] { run_encode(*args, *io); });

  CLI::App* decode = sub->add_subcommand("decode", "Decode a token id file back to the bytes it was made from");
  decode->add_option("--tokenizer", args->tokenizer, "the tokenizer that made the ids")->required();
  decode->add_option("in", args->in, "the token id file")->required();
  decode->add_option("--out", args->out, "the file to write")->required()->check(utf8_path());
  decode->callback([args, io] { run_decode(*args, *io); });
}

}  // namespace tg::cli
