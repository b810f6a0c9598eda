// Memory bounded by the data used (issue 32, items 16 and 17): a data file is read a line at a
// time, a line over the limit is refused as soon as the limit is passed (naming the file, the
// line and the limit), and a file that stat calls empty (/proc) is read to its end.
#include <fstream>

#include "core/io/input_file.h"
#include "core/io/line_reader.h"
#include "data/labelled_file.h"
#include "data/seq2seq_file.h"
#include "data/temp_file.h"
#include "data/text.h"
#include "test_util.h"

using namespace tg;
using namespace tg::data;
using tg::test::TempFile;

TEST_CASE("line limits: a line over the limit is refused naming the file, the line and the limit") {
  const std::string long_line(kMaxLineBytes + 1, 'a');
  TempFile tsv("long.tsv", "a\tX\nb\tY\n" + long_line + "\tZ\n");
  CHECK_THROWS_WITH_AS(read_labelled_file(tsv.path()),
                       doctest::Contains(fmt::format("read_labelled_file: {}:3: the line is longer than the limit of "
                                                     "1048576 bytes", tsv.path()).c_str()),
                       Error);
  TempFile pairs("long.jsonl", "{\"input\": \"" + long_line + "\", \"output\": \"b\"}");
  CHECK_THROWS_WITH_AS(read_seq2seq_file(pairs.path()),
                       doctest::Contains(fmt::format("read_seq2seq_file: {}:1: the line is longer than the limit",
                                                     pairs.path()).c_str()),
                       Error);
  // Exactly at the limit is a line like any other.
  const std::string at_limit = std::string(kMaxLineBytes - 2, 'a') + "\tX";
  CHECK(parse_labelled(at_limit, FileFormat::tsv, "t.tsv").size() == 1);
}

TEST_CASE("line limits: a line is refused before the rest of it is read") {
  // A line that never ends (a 1 GiB sparse file of zero bytes, no newline): were it read whole,
  // the test would take seconds and a gigabyte; the reader stops after the limit.
  TempFile sparse("sparse.tsv");
  {
    std::ofstream out(sparse.path(), std::ios::binary);
    out.seekp((int64_t{1} << 30) - 1);
    out.put('\0');
  }
  const InputFile file("read_text_file", sparse.path());
  LineReader lines(file, "test", 1000);
  std::string_view line;
  CHECK_THROWS_WITH_AS(lines.next(line), doctest::Contains(":1: the line is longer than the limit of 1000 bytes"),
                       Error);
}

TEST_CASE("line limits: a side with more tokens than a model takes names the line") {
  std::string many;
  for (int64_t i = 0; i <= kMaxLabelledTokens; ++i) many += "a ";
  CHECK_THROWS_WITH_AS(parse_labelled("a\tX\n" + many + "\t" + many, FileFormat::tsv, "t.tsv"),
                       doctest::Contains("t.tsv:2: the input has 65537 tokens, more than the limit of 65536"), Error);
}

TEST_CASE("line limits: LineReader gives each line once, with CRLF, no final newline and chunk boundaries") {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += fmt::format("line {}{}", i, i % 2 ? "\r\n" : "\n");  // ~200 kB: 4 chunks
  text += "last";
  TempFile file("lines.txt", text);
  const InputFile input("read_text_file", file.path());
  LineReader lines(input, "test", 100);
  std::string_view line;
  for (int i = 0; i < 20000; ++i) {
    REQUIRE(lines.next(line));
    CHECK(line == fmt::format("line {}", i));
  }
  REQUIRE(lines.next(line));
  CHECK(line == "last");
  CHECK(lines.line_number() == 20001);
  CHECK_FALSE(lines.next(line));
}

TEST_CASE("line limits: a /proc file, which stat calls empty, is read to its end") {
  const InputFile status("read_text_file", "/proc/self/status");
  CHECK(status.size() == 0);
  const std::string text = read_text_file("/proc/self/status");
  CHECK(text.find("Name:") != std::string::npos);
  CHECK(text.find("VmRSS:") != std::string::npos);
}
