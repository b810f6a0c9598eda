// Every op folder has a gradcheck test: each directory under ops/ (except common/) must be
// registered by a TG_GRADCHECK_TEST("<folder>") somewhere in the test binary.
#include <algorithm>
#include <filesystem>

#include "test_util.h"

TEST_CASE("coverage: every op folder has a gradcheck test") {
  const std::filesystem::path ops_dir = std::filesystem::path(TAPEGRAD_SOURCE_DIR) / "ops";
  REQUIRE(std::filesystem::is_directory(ops_dir));
  std::vector<std::string> folders, missing;
  for (const auto& entry : std::filesystem::directory_iterator(ops_dir))
    if (entry.is_directory() && entry.path().filename() != "common") folders.push_back(entry.path().filename());
  std::sort(folders.begin(), folders.end());  // directory order is unspecified
  for (const auto& op : folders)
    if (!tg::test::gradcheck_tested_ops().contains(op)) missing.push_back(op);
  CHECK(folders.size() >= 5);  // add, contiguous, expand, reshape, sum at least
  INFO("op folders without a TG_GRADCHECK_TEST: ", fmt::format("{}", fmt::join(missing, ", ")));
  CHECK(missing.empty());
}
