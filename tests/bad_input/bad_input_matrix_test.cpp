// Runs every row of the bad-input matrix (bad_input_case.h) and checks its outcome.
#include <doctest/doctest.h>

#include <exception>
#include <typeinfo>
#include <utility>

#include "core/error.h"
#include "bad_input/bad_input_case.h"
#include "train/train_test_util.h"

namespace tg::test {

std::string outcome_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const tg::Error& e) {
    return std::string("tg::Error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("foreign exception ") + typeid(e).name() + ": " + e.what();
  } catch (...) {
    return "foreign exception of unknown type";
  }
  return "no error";
}

std::string cli_outcome(std::vector<std::string> args) {
  const CliResult r = run_cli(std::move(args));
  return "exit " + std::to_string(r.status) + ": " + r.err;
}

namespace {

void check_rows(const char* area, const std::vector<BadInputCase>& rows) {
  for (const BadInputCase& row : rows) {
    const std::string outcome = row.run();
    INFO(area, ": ", row.name, "\n  outcome: ", outcome);
    CHECK(outcome.find("foreign exception") == std::string::npos);
    CHECK(outcome != "no error");
    for (const std::string& part : row.expected) {
      INFO("  expected to contain: ", part);
      CHECK(outcome.find(part) != std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE("bad-input matrix: every misuse gives a clear error naming what, which argument and the limit") {
  const std::pair<const char*, std::vector<BadInputCase>> areas[] = {
      {"library", library_cases()}, {"loaders", loader_cases()}, {"cli", cli_cases()},
      {"process", process_cases()}, {"data", data_cases()}, {"output", output_cases()},
      {"checkpoint strictness", checkpoint_strict_cases()}};
  size_t total = 0;
  std::string counts;
  for (const auto& [area, rows] : areas) {
    check_rows(area, rows);
    total += rows.size();
    counts += std::string(counts.empty() ? "" : ", ") + std::to_string(rows.size()) + " " + area;
  }
  MESSAGE(total, " cases: ", counts);
  CHECK(total >= 60);
}

}  // namespace tg::test
