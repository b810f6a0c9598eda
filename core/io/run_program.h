#pragma once
// Running another program (Graphviz's dot, gnuplot) without a shell: the program is found on
// PATH and given its arguments as a vector, so no path, file name or environment variable is
// ever read as shell syntax. Its input is written to its stdin and its stdout is returned, so
// no temporary file is needed either.
//
//   const std::string svg = run_program("explore", {"dot", "-Tsvg"}, dot_source,
//                                       "install the graphviz package (apt-get install graphviz)");
#include <string>
#include <string_view>
#include <vector>

namespace tg {

// Runs argv[0] (looked up on PATH) with arguments argv[1...], `input` on its stdin, and returns
// what it wrote to stdout. Its stderr is kept for the error message. Errors are
// tg::Error(op, ...): the program is not on PATH (with `install_hint`), cannot be started, is
// killed by a signal, or exits with a non-zero status (naming the status and the start of its
// stderr).
std::string run_program(const char* op, const std::vector<std::string>& argv, std::string_view input,
                        std::string_view install_hint);

}  // namespace tg
