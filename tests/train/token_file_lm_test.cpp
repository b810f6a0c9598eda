// `train --task lm --data corpus.bin --tokenizer tok.json`: a corpus encoded once (`tapegrad
// tokenizer encode`) and memory-mapped (data/token_windows.h), so that a corpus larger than
// memory trains and evaluates in the memory a small one takes.
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <fstream>
#include <string>
#include <vector>

#include "data/bpe_file.h"
#include "data/token_id_file.h"
#include "train_test_util.h"

using tg::test::number_after;
using tg::test::run_cli;
using tg::test::TempDir;

namespace {

std::string sentences() {
  std::string text;
  for (int i = 0; i < 300; ++i) text += i % 2 ? "the cat sat on the mat. " : "a dog ran to the log. ";
  return text;
}

// corpus.txt (sentences()), a tokenizer learned from it and the text encoded by it, in `dir`.
struct EncodedCorpus {
  std::filesystem::path text, tokenizer, bin;
};
EncodedCorpus write_encoded_corpus(const std::filesystem::path& dir) {
  const EncodedCorpus c{dir / "corpus.txt", dir / "tok.json", dir / "corpus.bin"};
  std::ofstream(c.text) << sentences();
  REQUIRE(run_cli({"tokenizer", "train", c.text.string(), "--vocab-size", "280", "--out", c.tokenizer.string()})
              .status == 0);
  REQUIRE(run_cli({"tokenizer", "encode", "--tokenizer", c.tokenizer.string(), c.text.string(), "--out",
                   c.bin.string()}).status == 0);
  return c;
}

std::vector<std::string> tiny_token_file_lm(const std::string& data, const std::string& tok, const std::string& out) {
  return {"train", "--task", "lm", "--arch", "gpt", "--data", data, "--tokenizer", tok, "--out", out,
          "--d-model", "32", "--heads", "2", "--layers", "1", "--ff", "64", "--block-size", "16",
          "--batch-size", "8", "--steps", "6", "--eval-every", "0", "--eval-batches", "4", "--threads", "1"};
}

// A .bin of `count` zero ids (byte 0, 2 bytes each) made by the tokenizer `hash`, without
// writing them: a real header, then the file extended to its size, sparse.
void write_sparse_ids(const std::filesystem::path& path, uint64_t count, const std::string& hash) {
  tg::data::write_token_id_file(path, std::vector<tg::data::TokenId>{}, 300, hash);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(16);
  for (int i = 0; i < 8; ++i) f.put(static_cast<char>((count >> (8 * i)) & 0xff));
  f.close();
  std::filesystem::resize_file(path, tg::data::kTokenIdHeaderBytes + 2 * count);
}

#ifdef TAPEGRAD_PROGRAM
// The peak resident memory (MiB) of `tapegrad args...` run as its own process; REQUIREs exit 0.
double peak_rss_mib(const std::vector<std::string>& args) {
  std::vector<std::string> argv_text = {TAPEGRAD_PROGRAM};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  REQUIRE(wait4(pid, &status, 0, &usage) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB
}
#endif

}  // namespace

TEST_CASE("token id file lm: train and eval on a .bin, with bits per byte") {
  TempDir dir("bin_lm");
  const auto [text, tok, bin] = write_encoded_corpus(dir.path());
  const auto trained = run_cli(tiny_token_file_lm(bin.string(), tok.string(), (dir.path() / "run").string()));
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  const auto eval = run_cli({"eval", (dir.path() / "run").string()});
  REQUIRE_MESSAGE(eval.status == 0, eval.err);
  CHECK(eval.out.find("bits per byte") != std::string::npos);

  // Without the tokenizer that made it, or with another, a .bin is refused.
  std::vector<std::string> args = tiny_token_file_lm(bin.string(), tok.string(), (dir.path() / "none").string());
  args.erase(args.begin() + 7, args.begin() + 9);  // "--tokenizer", tok
  const auto no_tokenizer = run_cli(args);
  CHECK(no_tokenizer.status != 0);
  CHECK_MESSAGE(no_tokenizer.err.find("is a token id file: it needs --tokenizer") != std::string::npos,
                no_tokenizer.err);
  std::ofstream(dir.path() / "other.txt") << "another text for another tokenizer, another text";
  const auto other = dir.path() / "other.json";
  REQUIRE(run_cli({"tokenizer", "train", (dir.path() / "other.txt").string(), "--vocab-size", "270", "--out",
                   other.string()}).status == 0);
  const auto foreign = run_cli(tiny_token_file_lm(bin.string(), other.string(), (dir.path() / "foreign").string()));
  CHECK(foreign.status != 0);
  CHECK(foreign.err.find("corpus.bin") != std::string::npos);
  CHECK(foreign.err.find("SHA-256") != std::string::npos);

  // --tokenizer bpe learns from text: a .bin is already tokens.
  args = tiny_token_file_lm(bin.string(), "bpe", (dir.path() / "learned").string());
  const auto learned = run_cli(args);
  CHECK(learned.status != 0);
  CHECK_MESSAGE(learned.err.find("--tokenizer bpe learns from text, but data " + bin.string() +
                                 " is a token id file") != std::string::npos, learned.err);
}

TEST_CASE("token id file lm: eval --data scores a .bin of the run's tokenizer, a character run refuses one") {
  TempDir dir("bin_eval");
  const auto [text, tok, bin] = write_encoded_corpus(dir.path());
  // Trained on the text, scored on its .bin: the same tokens, so the same loss as on the text
  // within the difference of the windows (evenly spaced over the ids against side by side).
  std::vector<std::string> args = tiny_token_file_lm(text.string(), tok.string(), (dir.path() / "run").string());
  REQUIRE(run_cli(args).status == 0);
  const auto on_bin = run_cli({"eval", (dir.path() / "run").string(), "--data", bin.string()});
  REQUIRE_MESSAGE(on_bin.status == 0, on_bin.err);
  CHECK_MESSAGE(on_bin.out.find("windows, evenly spaced), ") != std::string::npos, on_bin.out);
  CHECK(on_bin.out.find("bits per byte") != std::string::npos);
  const auto on_text = run_cli({"eval", (dir.path() / "run").string(), "--data", text.string()});
  REQUIRE_MESSAGE(on_text.status == 0, on_text.err);
  CHECK(number_after(on_bin.out, "loss") == doctest::Approx(number_after(on_text.out, "loss")).epsilon(0.05));

  args = {"train", "--task", "lm", "--data", text.string(), "--out", (dir.path() / "chars").string(), "--d-model",
          "16", "--heads", "1", "--layers", "1", "--ff", "16", "--block-size", "8", "--steps", "2", "--threads", "1"};
  REQUIRE(run_cli(args).status == 0);
  const auto refused = run_cli({"eval", (dir.path() / "chars").string(), "--data", bin.string()});
  CHECK(refused.status != 0);
  CHECK_MESSAGE(refused.err.find(bin.string() + " is a token id file, but the run was trained on characters") !=
                std::string::npos, refused.err);
}

#ifdef TAPEGRAD_PROGRAM
TEST_CASE("token id file lm: a 2 GB corpus trains and evaluates in the memory of a 2 MB one") {
  TempDir dir("bin_rss");
  const auto text = dir.path() / "corpus.txt", tok = dir.path() / "tok.json";
  std::ofstream(text) << sentences();
  REQUIRE(run_cli({"tokenizer", "train", text.string(), "--vocab-size", "280", "--out", tok.string()}).status == 0);
  const std::string hash = tg::data::bpe_sha256(tg::data::load_bpe_tokenizer(tok));
  const auto peak = [&](const std::string& name, uint64_t ids) {
    const auto bin = dir.path() / (name + ".bin");
    write_sparse_ids(bin, ids, hash);
    const double train = peak_rss_mib(tiny_token_file_lm(bin.string(), tok.string(), (dir.path() / name).string()));
    const double eval = peak_rss_mib({"eval", (dir.path() / name).string()});
    std::filesystem::remove(bin);
    return std::pair{train, eval};
  };
  const auto small = peak("small", uint64_t{1} << 20), large = peak("large", uint64_t{1} << 30);
  MESSAGE("peak RSS, 2 MB corpus: train ", small.first, " MiB, eval ", small.second, " MiB; 2 GB corpus: train ",
          large.first, " MiB, eval ", large.second, " MiB");
  CHECK(large.first <= small.first + 4);
  CHECK(large.second <= small.second + 4);
}
#endif
