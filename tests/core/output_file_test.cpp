#include "core/io/output_file.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "test_util.h"

using namespace tg;

namespace {

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("AtomicTextFile: the file appears whole at commit, and an uncommitted one leaves the old file") {
  const auto dir = std::filesystem::temp_directory_path() / ("tg_" + std::to_string(getpid()) + "_atomic");
  std::filesystem::create_directories(dir);
  const auto path = dir / "out.jsonl", temp = dir / "out.jsonl.tmp";
  std::ofstream(path) << "old\n";
  {
    AtomicTextFile file("test", path);
    file.stream() << "new\n";
    CHECK(contents(path) == "old\n");  // not yet
    CHECK(std::filesystem::exists(temp));
  }
  CHECK(contents(path) == "old\n");
  CHECK_FALSE(std::filesystem::exists(temp));
  {
    AtomicTextFile file("test", path);
    file.stream() << "new\n";
    file.commit();
  }
  CHECK(contents(path) == "new\n");
  CHECK_FALSE(std::filesystem::exists(temp));
  const std::string message = "test: " + (dir / "no" / "such.jsonl").string() + ": cannot create";
  CHECK_THROWS_WITH_AS(AtomicTextFile("test", dir / "no" / "such.jsonl"), doctest::Contains(message.c_str()), Error);
  std::filesystem::remove_all(dir);
}
