// The output-file primitive (core/io/output_file.h, output_directory.h): whole or not at all,
// never through a symbolic link, every failure a tg::Error with errno's text.
#include "core/io/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <set>

#include "core/io/output_directory.h"
#include "core/output_file_test_util.h"
#include "safetensors_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;
namespace fs = std::filesystem;

TEST_CASE("OutputFile: the file appears whole at commit, and an uncommitted one leaves the old file") {
  ScratchDir dir;
  const fs::path path = dir.path / "out.jsonl";
  write_bytes(path, "old\n");
  {
    OutputFile file("test", path);
    file.stream() << "new\n";
    CHECK(read_bytes(path) == "old\n");  // not yet
    CHECK(temporaries_in(dir.path).size() == 1);
  }
  CHECK(read_bytes(path) == "old\n");
  CHECK(temporaries_in(dir.path).empty());
  {
    OutputFile file("test", path);
    file.stream() << "new\n";
    file.write("and more\n");
    file.commit();
  }
  CHECK(read_bytes(path) == "new\nand more\n");
  CHECK(temporaries_in(dir.path).empty());
  write_file_atomically("test", path, "whole");
  CHECK(read_bytes(path) == "whole");
  CHECK(std::set<fs::path>(fs::directory_iterator(dir.path), fs::directory_iterator()) == std::set<fs::path>{path});
}

TEST_CASE("OutputFile: a link at the file or at any temporary name is never written through") {
  ScratchDir dir;
  const fs::path path = dir.path / "page.html", victim = dir.path / "victim";
  write_bytes(victim, "not yours");
  fs::create_symlink(victim, path);
  fs::create_symlink(victim, dir.path / "page.html.tmp");  // the name writers once used
  OutputFile first("test", path), second("test", path);
  CHECK(first.temporary_path() != second.temporary_path());  // unique names
  CHECK(first.temporary_path().parent_path() == dir.path);   // beside the file, for the rename
  CHECK(fs::is_regular_file(fs::symlink_status(first.temporary_path())));
  first.stream() << "the page";
  first.commit();
  CHECK(read_bytes(victim) == "not yours");
  CHECK_FALSE(fs::is_symlink(path));
  CHECK(read_bytes(path) == "the page");
  CHECK(fs::is_symlink(dir.path / "page.html.tmp"));  // not ours: left alone
}

TEST_CASE("OutputFile: a failed write or rename leaves the old file and no temporary file, naming errno's text") {
  ScratchDir dir;
  const fs::path path = dir.path / "metrics.csv";
  write_bytes(path, "old");
  SUBCASE("the disk is 'full' past 4 KiB, in the stream") {
    FileSizeLimit limit(4096);
    OutputFile file("report", path);
    file.stream() << std::string(100000, 'x');
    CHECK_THROWS_WITH_AS(file.commit(), doctest::Contains(("report: cannot write " + path.string() +
                                                           ": File too large").c_str()), Error);
  }
  SUBCASE("the disk is 'full' past 4 KiB, in one write") {
    FileSizeLimit limit(4096);
    CHECK_THROWS_WITH_AS(write_file_atomically("report", path, std::string(100000, 'x')),
                         doctest::Contains("File too large"), Error);
  }
  SUBCASE("a directory is where the file goes") {
    fs::remove(path);
    fs::create_directories(path / "inside");
    CHECK_THROWS_WITH_AS(write_file_atomically("report", path, "new"),
                         doctest::Contains("cannot rename the temporary file over it: Is a directory"), Error);
    fs::remove_all(path);
    write_bytes(path, "old");
  }
  SUBCASE("the directory is missing, or the path names a directory") {
    const fs::path missing = dir.path / "no" / "such.csv";
    CHECK_THROWS_WITH_AS(OutputFile("report", missing),
                         doctest::Contains(("report: cannot write " + missing.string() +
                                            ": cannot open its directory: No such file or directory").c_str()), Error);
    CHECK_THROWS_WITH_AS(OutputFile("report", dir.path / "sub/"), doctest::Contains("names a directory"), Error);
  }
  CHECK(read_bytes(path) == "old");
  CHECK(temporaries_in(dir.path).empty());
}

TEST_CASE("write_fully: a full disk says so (ENOSPC's text, /dev/full)") {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  CHECK_THROWS_WITH_AS(write_fully("eval", "p.jsonl", fd, "a line\n"),
                       doctest::Contains("eval: cannot write p.jsonl: No space left on device"), Error);
  ::close(fd);
}

TEST_CASE("AppendFile: whole lines appended to the file, a link in its place refused") {
  ScratchDir dir;
  const fs::path log = dir.path / "metrics.jsonl", victim = dir.path / "victim";
  write_file_atomically("train", log, "1\n");
  {
    AppendFile file("train", log);
    file.append_line("2");
    file.append_line("3");
  }
  CHECK(read_bytes(log) == "1\n2\n3\n");
  write_bytes(victim, "not yours");
  fs::remove(log);
  fs::create_symlink(victim, log);
  CHECK_THROWS_WITH_AS(AppendFile("train", log), doctest::Contains("is a symbolic link (not followed)"), Error);
  CHECK(read_bytes(victim) == "not yours");
}

TEST_CASE("OutputDirectory: all files at once in place of an earlier one, or nothing") {
  ScratchDir dir;
  const fs::path out = dir.path / "export", victim = dir.path / "victim";
  const std::vector<std::string> names{"a.txt", "b.txt"};
  write_bytes(victim, "not yours");
  const auto write_both = [&](OutputDirectory& d, const std::string& text) {
    for (const std::string& name : names) write_file_atomically("export", d.file(name), text);
  };
  {  // a new directory, its parents made
    OutputDirectory d("export", dir.path / "new" / "export", names);
    write_both(d, "first");
    d.commit();
    CHECK(read_bytes(dir.path / "new" / "export" / "b.txt") == "first");
  }
  fs::create_directories(out);
  fs::create_symlink(victim, out / "a.txt");  // links inside an earlier one are removed, not followed
  {
    OutputDirectory d("export", out, names);
    write_both(d, "second");
    CHECK(temporaries_in(dir.path).size() == 1);
  }  // not committed: nothing changes
  CHECK(fs::is_symlink(out / "a.txt"));
  CHECK(temporaries_in(dir.path).empty());
  {
    OutputDirectory d("export", out, names);
    write_both(d, "third");
    d.commit();
  }
  CHECK(read_bytes(out / "a.txt") == "third");
  CHECK(read_bytes(out / "b.txt") == "third");
  CHECK(read_bytes(victim) == "not yours");
  CHECK(temporaries_in(dir.path).empty());

  write_bytes(out / "notes.txt", "mine");
  CHECK_THROWS_WITH_AS(OutputDirectory("export", out, names), doctest::Contains("holds notes.txt"), Error);
  fs::create_symlink(out, dir.path / "link");
  CHECK_THROWS_WITH_AS(OutputDirectory("export", dir.path / "link", names), doctest::Contains("is a symbolic link"),
                       Error);
  CHECK_THROWS_WITH_AS(OutputDirectory("export", victim, names), doctest::Contains("exists and is not a directory"),
                       Error);
  CHECK(read_bytes(out / "notes.txt") == "mine");
  CHECK(temporaries_in(dir.path).empty());
}
