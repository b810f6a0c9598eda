// core/io/run_program.h: another program run without a shell, its stdin fed and its stdout
// captured, and every way it can fail a tg::Error naming it.
#include "core/io/run_program.h"

#include <string>

#include "test_util.h"

using namespace tg;

TEST_CASE("run_program: arguments reach the program as written, shell syntax included") {
  const std::string argument = "a';touch PWNED;'$(id)`id` \"b\" *";
  CHECK(run_program("test", {"printf", "%s", argument}, "", "") == argument);
}

TEST_CASE("run_program: a large input is fed while the output is read (no deadlock on full pipes)") {
  std::string input(3 << 20, 'x');  // several times a pipe's buffer, each way
  for (size_t i = 0; i < input.size(); i += 97) input[i] = '\n';
  CHECK(run_program("test", {"cat"}, input, "") == input);
}

TEST_CASE("run_program: a missing program, a failure and a signal are errors naming the program") {
  CHECK_THROWS_WITH_AS(run_program("test", {"tapegrad-no-such-program"}, "", "install it"),
                       "test: tapegrad-no-such-program is not on PATH: install it", Error);
  CHECK_THROWS_WITH_AS(run_program("test", {"sh", "-c", "echo 'what went wrong' >&2; exit 3"}, "", ""),
                       "test: sh failed (exit status 3): what went wrong", Error);
  CHECK_THROWS_WITH_AS(run_program("test", {"sh", "-c", "kill -TERM $$"}, "", ""),
                       doctest::Contains("test: sh was killed by signal 15"), Error);
  // One that exits without reading its input: no SIGPIPE ends the caller, the status tells.
  CHECK_THROWS_WITH_AS(run_program("test", {"false"}, std::string(1 << 20, 'x'), ""),
                       "test: false failed (exit status 1)", Error);
}
