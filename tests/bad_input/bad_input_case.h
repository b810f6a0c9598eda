#pragma once
// The bad-input matrix (issue: untrusted files and bad input): every misuse of the library
// API, the loaders and the tapegrad program that we know of, each with the key parts of the
// error it must give. One table, run by bad_input_matrix_test.cpp; the rows live beside it,
// one file per area (library_cases.cpp, loader_cases.cpp, cli_cases.cpp, process_cases.cpp).
#include <functional>
#include <string>
#include <vector>

namespace tg::test {

// What a misuse did, as one line of text the expectations are matched against:
//   "tg::Error: <what()>"                  the library threw tg::Error (what we want)
//   "exit <status>: <stderr>"              the tapegrad program returned (cli_cases)
//   "no error"                             it succeeded
//   "foreign exception <type>: <what()>"   anything else escaped (always a defect)
struct BadInputCase {
  std::string name;                   // the misuse, e.g. "zeros with 2^62 x 4 elements"
  std::function<std::string()> run;   // performs it and describes what happened
  std::vector<std::string> expected;  // substrings the outcome must contain (op/file, argument, limit)
};

// Runs fn, which should throw tg::Error, and describes what it did.
std::string outcome_of(const std::function<void()>& fn);

// `tapegrad args...` in-process (args without the program's name): "exit N: <stderr>".
std::string cli_outcome(std::vector<std::string> args);

std::vector<BadInputCase> library_cases();
std::vector<BadInputCase> loader_cases();
std::vector<BadInputCase> cli_cases();
std::vector<BadInputCase> process_cases();  // environment, run directories in use, non-UTF-8 paths
std::vector<BadInputCase> data_cases();  // data files, tokens, a run's stored data paths
std::vector<BadInputCase> output_cases();  // output files: planted links, a run's records as outputs, export
std::vector<BadInputCase> checkpoint_strict_cases();  // exact checkpoints: dtypes, finite values, complete state, JSON types

}  // namespace tg::test
