// The test runner: doctest's own main, made honest about GPU cases and about filters. A GPU
// case that finds no GPU calls gpu_available_or_skip(), which counts it; the count is printed,
// and when CTest runs a single case (a --test-case filter) that was skipped, the process exits
// with 77 so CTest reports it as "Skipped", never as "Passed". The cases that did find a GPU are
// counted too, and the count says whether that GPU was the CUDA emulator (cuda_emulator/). A filter that selects no case at
// all fails: CTest splits a test name at each ';' into entries that match nothing, and those
// would otherwise pass without running anything.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string_view>

#include "test_util.h"

namespace {
constexpr int kSkipReturnCode = 77;  // SKIP_RETURN_CODE in tests/CMakeLists.txt

// Counts the test cases that pass the filters, as doctest reports at the end of the run, and tells
// test_util which case is running (gpu_available_or_skip checks its name).
struct RunListener : doctest::IReporter {
  static inline unsigned selected = 0;
  explicit RunListener(const doctest::ContextOptions&) {}
  void test_run_end(const doctest::TestRunStats& stats) override { selected = stats.numTestCasesPassingFilters; }
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_case_start(const doctest::TestCaseData& data) override { tg::test::set_running_case(data.m_name); }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("run_listener", 1, RunListener);

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
  if (single_case_run(argc, argv) && RunListener::selected == 0) {
    fmt::print(stderr, "no test case matches the --test-case filter (a ';' in a test name splits it in CTest)\n");
    return 1;
  }
  int skipped = tg::test::skipped_gpu_cases();
  if (skipped > 0) fmt::print("GPU cases skipped (no GPU present): {}\n", skipped);
  if (tg::test::gpu_cases_run() > 0)
    fmt::print("GPU cases run {}: {}\n", tg::cuda_emulated() ? "on the CUDA emulator (the CPU, not a GPU)" : "on a GPU",
               tg::test::gpu_cases_run());
  if (result == 0 && skipped > 0 && single_case_run(argc, argv)) return kSkipReturnCode;
  return result;
}
