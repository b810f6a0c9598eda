// read_text_file: the reader of every text file the user names (--data corpora, labelled
// files). What is not a regular file is refused at once with its path and kind.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "data/labelled_file.h"
#include "data/temp_file.h"
#include "data/text.h"
#include "test_util.h"

using namespace tg;
using namespace tg::data;
using tg::test::TempFile;
namespace fs = std::filesystem;

TEST_CASE("read_text_file: the bytes of a file, and errors naming a missing file, a directory or a FIFO") {
  TempFile text("corpus.txt", std::string("ab\0c\xff", 5));
  CHECK(read_text_file(text.path()) == std::string("ab\0c\xff", 5));
  TempFile empty("empty.txt");
  CHECK(read_text_file(empty.path()).empty());

  const fs::path dir = fs::temp_directory_path() / ("tg_" + std::to_string(::getpid()) + "_dir.tsv");
  fs::create_directory(dir);
  const fs::path fifo = fs::temp_directory_path() / ("tg_" + std::to_string(::getpid()) + "_fifo.jsonl");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(
      read_text_file(dir.string()),
      doctest::Contains(("read_text_file: " + dir.string() + ": is a directory, not a regular file").c_str()), Error);
  // Opening a FIFO for reading waits for a writer: this returns at once or hangs.
  CHECK_THROWS_WITH_AS(
      read_labelled_file(fifo.string()),
      doctest::Contains(("read_text_file: " + fifo.string() + ": is a FIFO (named pipe), not a regular file").c_str()),
      Error);
  CHECK_THROWS_WITH_AS(read_labelled_file(dir.string()), doctest::Contains("is a directory, not a regular file"),
                       Error);
  CHECK_THROWS_WITH_AS(read_text_file(dir.string() + "/missing.txt"),
                       doctest::Contains("missing.txt: cannot open: No such file or directory"), Error);
  fs::remove(dir);
  fs::remove(fifo);
}
