// Bad-input matrix rows: data files, tokens and a run's stored data paths (issue 32, items 3,
// 15, 16 and 17). See bad_input_case.h. The rows that need a run share one tiny language-model
// run, made on first use; each row that edits it edits its own copy.
#include <filesystem>
#include <fstream>
#include <functional>

#include "bad_input/bad_input_case.h"
#include "data/labelled_file.h"
#include "data/seq2seq_file.h"
#include "train/checkpoint.h"
#include "train/run_data.h"
#include "train/seq2seq_data.h"
#include "train/train_test_util.h"

namespace tg::test {

namespace {

namespace fs = std::filesystem;

struct DataRuns {
  TempDir dir{"bad_input_data"};
  fs::path corpus = dir.path() / "corpus.txt";  // the run's text
  fs::path run = dir.path() / "run";            // a finished lm run on it

  DataRuns() {
    std::ofstream(corpus) << "abcabcabc\nbcabca\nabcabcabc\nbcabca\nabcabcabc\nbcabca\nabcabcabc\nbcabca\n";
    const auto r = cli_outcome({"train", "--task", "lm", "--data", corpus.string(), "--block-size", "4", "--steps", "2",
                                "--warmup", "1", "--d-model", "16", "--heads", "2", "--layers", "1", "--ff", "16",
                                "--batch-size", "4", "--out", run.string()});
    if (r != "exit 0: ") throw std::runtime_error("the shared lm run failed: " + r);
  }

  // A copy of the run called `name`, its checkpoint's config changed by `edit` (CRC-valid, as
  // anyone can write one).
  std::string edited(const std::string& name, const std::function<void(train::TrainConfig&)>& edit) const {
    const fs::path copy = dir.path() / name;
    fs::copy(run, copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    train::Checkpoint c = train::load_checkpoint(copy / "checkpoint.safetensors");
    edit(c.config);
    train::save_checkpoint(copy / "checkpoint.safetensors", c);
    return copy.string();
  }
};

const DataRuns& runs() {
  static const DataRuns shared;
  return shared;
}

// A file in the shared directory holding `bytes`; its path.
std::string file(const std::string& name, const std::string& bytes) {
  const fs::path path = runs().dir.path() / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

// A row reading `bytes` as the file `file_name` with `read`.
BadInputCase file_row(std::string name, std::string file_name, std::string bytes,
                      std::function<void(const std::string&)> read, std::vector<std::string> expected) {
  return {std::move(name), [=] { return outcome_of([&] { read(file(file_name, bytes)); }); }, std::move(expected)};
}

BadInputCase labelled_row(std::string name, std::string file_name, std::string bytes,
                          std::vector<std::string> expected) {
  return file_row(std::move(name), std::move(file_name), std::move(bytes),
                  [](const std::string& path) { data::load_labelled_task(path, 0.5, 3); }, std::move(expected));
}

BadInputCase pairs_row(std::string name, std::string file_name, std::string bytes, std::vector<std::string> expected) {
  return file_row(std::move(name), std::move(file_name), std::move(bytes),
                  [](const std::string& path) { data::read_seq2seq_file(path); }, std::move(expected));
}

BadInputCase cli_row(std::string name, std::function<std::vector<std::string>()> args,
                     std::vector<std::string> expected) {
  return {std::move(name), [args] { return cli_outcome(args()); }, std::move(expected)};
}

std::string tokens(int64_t n) {
  std::string s;
  for (int64_t i = 0; i < n; ++i) s += "a ";
  return s;
}

}  // namespace

std::vector<BadInputCase> data_cases() {
  return {
      labelled_row("tsv: a 2 MiB line (memory: one line at a time)", "long_line.tsv",
                   "a\tX\n" + std::string(2 << 20, 'a') + "\tX\n",
                   {"read_labelled_file: ", "long_line.tsv:2: the line is longer than the limit of 1048576 bytes"}),
      labelled_row("tsv: an input of 65537 tokens", "many_tokens.tsv",
                   tokens(65537) + "\t" + tokens(65537) + "\n",
                   {"many_tokens.tsv:1: the input has 65537 tokens, more than the limit of 65536"}),
      labelled_row("jsonl: a key twice in one object (no last-wins)", "duplicate.jsonl",
                   "{\"input\": [\"a\"], \"output\": [\"X\"], \"output\": [\"Y\"]}\n",
                   {"duplicate.jsonl:1: the key \"output\" appears twice in one object"}),
      labelled_row("tsv: a reserved name as a data token", "reserved.tsv", "a b\tX Y\n<pad> a\tX Y\n",
                   {"reserved.tsv:2: input token <pad> (position 1) is a reserved name"}),
      labelled_row("jsonl: <unk> as an output token", "reserved.jsonl",
                   "{\"input\": [\"a\"], \"output\": [\"<unk>\"]}\n",
                   {"reserved.jsonl:1: output token <unk> (position 1) is a reserved name"}),
      labelled_row("labelled file: a validation-share token training never saw (no <unk>)", "val_share.tsv",
                   "a\tX\nb\tY\nc\tZ\nd\tW\n",
                   {"encode_labelled: ", "val_share.tsv:", "is not in the model's", "vocabulary"}),
      pairs_row("pairs: a key twice in one object", "duplicate_pairs.jsonl",
                "{\"input\": \"ab\", \"input\": \"cd\", \"output\": \"x\"}\n",
                {"read_seq2seq_file: ", "duplicate_pairs.jsonl:1: the key \"input\" appears twice"}),
      pairs_row("pairs: a 2 MiB line", "long_pairs.tsv", std::string(2 << 20, 'a') + "\tb\n",
                {"long_pairs.tsv:1: the line is longer than the limit of 1048576 bytes"}),
      {"pairs: a validation-share character training lacks (no <unk>)",
       [] {
         train::TrainConfig c = train::seq2seq_defaults();
         c.task = "file", c.out = runs().dir.path().string(), c.val_fraction = 0.5;
         c.data = file("val_char.tsv", "ab\tba\nab\tba\ncd\tdc\nab\tba\n");
         train::record_data_hash(c, train::RunDataFile::data);
         return outcome_of([&] { train::make_seq2seq_data(c); });
       },
       {"val_char.tsv:3 input: the character \"c\" is not in the model's vocabulary"}},
      pairs_row("pairs: a list of words in a run whose tokens are characters", "words.jsonl",
                "{\"input\": [\"three\", \"one\"], \"output\": [\"1\", \"3\"]}\n",
                {"words.jsonl:1: input[0] \"three\" is not one character", "--token-sep"}),
      pairs_row("pairs: token lists, then a string (one form per file)", "mixed.jsonl",
                "{\"input\": [\"a\"], \"output\": [\"b\"]}\n{\"input\": \"a\", \"output\": \"b\"}\n",
                {"mixed.jsonl:2: input is a string, but the file's first pair gives lists"}),
      {"pairs: a validation-share word training lacks (no <unk>)",
       [] {
         train::TrainConfig c = train::seq2seq_defaults();
         c.task = "file", c.out = runs().dir.path().string(), c.val_fraction = 0.5, c.token_sep = " ";
         c.data = file("val_word.tsv", "ab x\tba\nab x\tba\ncd x\tdc\nab x\tba\n");
         train::record_data_hash(c, train::RunDataFile::data);
         return outcome_of([&] { train::make_seq2seq_data(c); });
       },
       {"val_word.tsv:3 input: the token \"cd\" is not in the model's vocabulary (3 tokens)"}},
      cli_row("eval: a checkpoint whose config names another file", [] {
                return std::vector<std::string>{"eval", runs().edited("other", [](train::TrainConfig& c) {
                  c.data = (runs().dir.path() / "long_line.tsv").string();
                })};
              },
              {"exit 1", "long_line.tsv (the run's --data, stored as", "the file's content is not the run's",
               "give the data file with --data"}),
      cli_row("eval: a run without its data's hash (an older run)", [] {
                return std::vector<std::string>{"eval", runs().edited("no_hash", [](train::TrainConfig& c) {
                  c.data_sha256.clear();
                })};
              },
              {"exit 1", "corpus.txt", "the run stores no SHA-256 of the file's content", "--data"}),
      cli_row("eval: a data hash that is not a SHA-256", [] {
                return std::vector<std::string>{"eval", runs().edited("bad_hash", [](train::TrainConfig& c) {
                  c.data_sha256 = "\x1b]0;title\x07";
                })};
              },
              {"exit 1", "data_sha256 must be 64 lowercase hex digits (a SHA-256) or empty"}),
      cli_row("sample: --prompt with a character the model never saw (no <unk>)",
              [] { return std::vector<std::string>{"sample", runs().run.string(), "--prompt", "abz"}; },
              {"--prompt", "\"abz\" has a character the model never reads"}),
  };
}

}  // namespace tg::test
