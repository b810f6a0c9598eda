// Tokens holding terminal escapes (a title change, a screen clear, a right-to-left override)
// reach the terminal escaped (eval's examples always, sample's text on a terminal), and reach
// a file or a pipe byte for byte (sample's text is what the user asked for).
#include <poll.h>
#include <pty.h>
#include <unistd.h>

#include <fstream>

#include "test_util.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::TempDir;

namespace {

const std::string kEscapes = "\x1b]0;T\x07\xe2\x80\xae";  // OSC title, BEL, U+202E

bool holds_raw_escape(const std::string& text) {
  return text.find('\x1b') != std::string::npos || text.find('\x07') != std::string::npos ||
         text.find("\xe2\x80\xae") != std::string::npos;
}

// A tiny language model trained on a text whose lines hold kEscapes.
std::string hostile_lm_run(const TempDir& dir) {
  const std::string corpus = (dir.path() / "hostile.txt").string();
  std::ofstream out(corpus);
  for (int i = 0; i < 60; ++i) out << "ab " << kEscapes << " cd\n";
  out.close();
  const std::string run = (dir.path() / "run").string();
  const auto r = test::run_cli({"train", "--task", "lm", "--data", corpus, "--block-size", "8", "--steps", "2",
                                "--warmup", "1", "--d-model", "16", "--heads", "2", "--layers", "1", "--ff", "16",
                                "--batch-size", "4", "--out", run});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return run;
}

// `tapegrad args...` in-process with its standard output a terminal (a pseudo-terminal); what
// the terminal received.
std::string terminal_output(std::vector<std::string> args) {
  int master = -1, slave = -1;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
  std::FILE* out = ::fdopen(slave, "w");
  std::FILE* err = std::tmpfile();
  args.insert(args.begin(), "tapegrad");
  CHECK(cli::run(args, out, err) == 0);
  std::fclose(out);
  std::fclose(err);
  std::string received;
  char buffer[4096];
  pollfd ready{master, POLLIN, 0};
  while (::poll(&ready, 1, 100) > 0) {
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n <= 0) break;
    received.append(buffer, static_cast<size_t>(n));
  }
  ::close(master);
  return received;
}

}  // namespace

TEST_CASE("terminal: eval shows tokens holding terminal escapes escaped, sample's text escaped on a terminal only") {
  TempDir dir("terminal_escapes");
  const std::string run = hostile_lm_run(dir);

  const auto eval = test::run_cli({"eval", run, "--show", "3"});
  REQUIRE_MESSAGE(eval.status == 0, eval.err);
  CHECK_FALSE(holds_raw_escape(eval.out));
  CHECK(eval.out.find("\\x1B") != std::string::npos);  // every 14 characters of the text hold both
  CHECK(eval.out.find("\\u202E") != std::string::npos);

  const std::vector<std::string> sample = {"sample", run, "--prompt", kEscapes, "--tokens", "4"};
  const auto piped = test::run_cli(sample);  // not a terminal: the text byte for byte, the prompt first
  REQUIRE_MESSAGE(piped.status == 0, piped.err);
  CHECK(piped.out.starts_with(kEscapes));

  const std::string shown = terminal_output(sample);
  CHECK_FALSE(holds_raw_escape(shown));
  CHECK(shown.starts_with("\\x1B]0;T\\x07\\u202E"));
}
