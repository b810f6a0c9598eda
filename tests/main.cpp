// The test runner: doctest's own main, made honest about GPU cases. A GPU case that finds no
// GPU calls gpu_available_or_skip(), which counts it; the count is printed, and when CTest
// runs a single case (a --test-case filter) that was skipped, the process exits with 77 so
// CTest reports it as "Skipped", never as "Passed".
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string_view>

#include "test_util.h"

namespace {
constexpr int kSkipReturnCode = 77;  // SKIP_RETURN_CODE in tests/CMakeLists.txt

bool single_case_run(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with("--test-case=") || arg.starts_with("-tc=")) return true;
  }
  return false;
}
}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  int result = context.run();
  if (context.shouldExit()) return result;
  int skipped = tg::test::skipped_gpu_cases();
  if (skipped > 0) fmt::print("GPU cases skipped (no GPU present): {}\n", skipped);
  if (result == 0 && skipped > 0 && single_case_run(argc, argv)) return kSkipReturnCode;
  return result;
}
