// Fuzz target: the tapegrad program's argument parser and flag checks (apps/cli.h), every
// command, without running one (tg::cli::parse_only).
//
// Input: the words of one command line after the program's name, separated by newlines or
// NUL bytes ("train\n--steps\n20"); fuzz/corpus/cli_args/ holds one command line a file. A
// valid command line gives 0, a bad one 2 with its message; anything else (an escaping
// exception, a crash, another status) is a finding.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::FILE* const null = std::fopen("/dev/null", "w");
  std::vector<std::string> args = {"tapegrad"};
  std::string word;
  for (size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == '\n' || data[i] == '\0') {
      args.push_back(word);
      word.clear();
    } else {
      word += static_cast<char>(data[i]);
    }
  }
  const int status = tg::cli::parse_only(args, null, null);
  if (status != 0 && status != 2) std::abort();
  return 0;
}
