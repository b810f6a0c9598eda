// The test runner: doctest's own main, plus a line that says how many GPU cases were
// skipped because no GPU is present (so a skip is never mistaken for a pass).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "test_util.h"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  int result = context.run();
  if (int skipped = tg::test::skipped_gpu_cases(); skipped > 0)
    fmt::print("GPU cases skipped (no GPU present): {}\n", skipped);
  return result;
}
