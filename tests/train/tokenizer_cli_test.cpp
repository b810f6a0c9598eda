// `tapegrad tokenizer train|encode|decode` (apps/tokenizer_command.cpp): a corpus's bytes come
// back exactly, and ids are never decoded with another tokenizer than the one that made them.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "train_test_util.h"

using tg::test::run_cli;
using tg::test::TempDir;

TEST_CASE("tokenizer CLI: train, encode and decode give back the corpus byte for byte") {
  TempDir dir("tokenizer_cli");
  std::string corpus;
  for (int i = 0; i < 200; ++i) corpus += "the cat sat on the mat; the dog sat on the log.\n";
  corpus += std::string("\xff\x00 <bos> caf\xc3\xa9\n", 15);
  tg::test::write_file(dir.path() / "corpus.txt", corpus);
  const std::string tok = (dir.path() / "tok.json").string(), ids = (dir.path() / "corpus.bin").string();
  const auto trained = run_cli({"tokenizer", "train", (dir.path() / "corpus.txt").string(), "--vocab-size", "300",
                                "--special", "<bos>", "--out", tok});
  REQUIRE(trained.status == 0);
  CHECK(trained.out.find("tokens (1 special)") != std::string::npos);
  REQUIRE(run_cli({"tokenizer", "encode", "--tokenizer", tok, (dir.path() / "corpus.txt").string(), "--out", ids})
              .status == 0);
  const auto decoded = run_cli({"tokenizer", "decode", "--tokenizer", tok, ids, "--out",
                                (dir.path() / "decoded.txt").string()});
  REQUIRE(decoded.status == 0);
  CHECK(tg::test::read_file(dir.path() / "decoded.txt") == corpus);

  // Another tokenizer's ids are refused, naming both hashes.
  tg::test::write_file(dir.path() / "other.txt", "another corpus, another tokenizer, another corpus");
  const std::string other = (dir.path() / "other.json").string();
  REQUIRE(run_cli({"tokenizer", "train", (dir.path() / "other.txt").string(), "--vocab-size", "280", "--out", other})
              .status == 0);
  const auto refused = run_cli({"tokenizer", "decode", "--tokenizer", other, ids, "--out",
                                (dir.path() / "wrong.txt").string()});
  CHECK(refused.status != 0);
  CHECK(refused.err.find("its ids were made by the tokenizer with SHA-256") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.path() / "wrong.txt"));
}

TEST_CASE("tokenizer CLI: a vocabulary size below the bytes is refused at the flag") {
  const auto r = run_cli({"tokenizer", "train", "x.txt", "--vocab-size", "100", "--out", "tok.json"});
  CHECK(r.status != 0);
  CHECK(r.err.find("--vocab-size") != std::string::npos);
}
