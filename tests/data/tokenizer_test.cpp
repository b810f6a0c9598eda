#include "data/char_tokenizer.h"
#include "data/text.h"
#include "data/vocab.h"
#include "data/temp_file.h"
#include "test_util.h"

using namespace tg;
using namespace tg::data;
using tg::test::TempFile;

TEST_CASE("vocab: reserved ids, adding, lookup and unknown tokens") {
  Vocab v({"cat", "dog", "cat", "<sep>"});  // the repeat and the reserved name are not added again
  CHECK(v.size() == kNumReserved + 2);
  CHECK(v.token(kPadId) == "<pad>");
  CHECK(v.token(kUnkId) == "<unk>");
  CHECK(v.token(kBosId) == "<bos>");
  CHECK(v.token(kSepId) == "<sep>");
  CHECK(v.token(kMaskId) == "<mask>");
  CHECK(v.id("cat") == 5);
  CHECK(v.id("dog") == 6);
  CHECK(v.id("<sep>") == kSepId);
  CHECK(v.id("bird") == kUnkId);
  CHECK(v.add("bird") == 7);
  CHECK(v.add("cat") == 5);
  CHECK(v.encode({"dog", "fish", "cat"}) == std::vector<int64_t>{6, kUnkId, 5});
  CHECK(v.decode({5, 0, 7}) == std::vector<std::string>{"cat", "<pad>", "bird"});
  CHECK_THROWS_WITH_AS(v.token(8), doctest::Contains("Vocab: id 8 is out of range for a vocabulary of 8 tokens"), Error);
  CHECK_THROWS_WITH_AS(v.token(-1), doctest::Contains("Vocab: id -1 is out of range"), Error);
  CHECK_THROWS_WITH_AS(v.add(""), doctest::Contains("Vocab: a token cannot be the empty string"), Error);
}

TEST_CASE("vocab: save and load round trip, with escaped and multibyte tokens") {
  Vocab v({"a", " ", "\n", "\t", "\r", "\\", "\\n", "é", "日本", "new york"});
  TempFile file("vocab.txt");
  v.save(file.path());
  CHECK(read_text_file(file.path()) ==
        "tapegrad-vocab 1\n<pad>\n<unk>\n<bos>\n<sep>\n<mask>\na\n\\s\n\\n\n\\t\n\\r\n\\\\\n\\\\n\né\n日本\nnew\\syork\n");
  Vocab back = Vocab::load(file.path());
  CHECK(back == v);
  CHECK(back.id("\\n") == v.id("\\n"));
  CHECK(back.id("new york") == kNumReserved + 9);
}

TEST_CASE("vocab: load rejects malformed files naming file and line") {
  TempFile header("bad_header.txt", "vocab\n<pad>\n");
  CHECK_THROWS_WITH_AS(Vocab::load(header.path()), doctest::Contains("bad_header.txt:1: expected the header"), Error);
  TempFile reserved("bad_reserved.txt", "tapegrad-vocab 1\n<pad>\n<bos>\n");
  CHECK_THROWS_WITH_AS(Vocab::load(reserved.path()),
                       doctest::Contains("bad_reserved.txt:3: expected the reserved token <unk> (id 1)"), Error);
  TempFile short_file("short.txt", "tapegrad-vocab 1\n<pad>\n<unk>\n");
  CHECK_THROWS_WITH_AS(Vocab::load(short_file.path()), doctest::Contains("ends before the reserved tokens"), Error);
  TempFile dup("dup.txt", "tapegrad-vocab 1\n<pad>\n<unk>\n<bos>\n<sep>\n<mask>\nx\ny\nx\n");
  CHECK_THROWS_WITH_AS(Vocab::load(dup.path()), doctest::Contains("dup.txt:9: token \"x\" repeats id 5"), Error);
  TempFile escape("escape.txt", "tapegrad-vocab 1\n<pad>\n<unk>\n<bos>\n<sep>\n<mask>\n\\q\n");
  CHECK_THROWS_WITH_AS(Vocab::load(escape.path()), doctest::Contains("escape.txt:7: unknown escape"), Error);
  CHECK_THROWS_WITH_AS(Vocab::load("/nonexistent/vocab.txt"),
                       doctest::Contains("Vocab::load: /nonexistent/vocab.txt: cannot open: No such file or directory"),
                       Error);
  CHECK_THROWS_WITH_AS(Vocab::load(std::filesystem::temp_directory_path().string()),
                       doctest::Contains("is a directory, not a regular file"), Error);
}

TEST_CASE("utf8: a character is a code point, not a byte") {
  // 'a' 1 byte, 'é' 2 (C3 A9), '日' 3 (E6 97 A5), '🙂' 4 (F0 9F 99 82)
  std::vector<std::string> chars = utf8_chars("a\xC3\xA9\xE6\x97\xA5\xF0\x9F\x99\x82");
  CHECK(chars == std::vector<std::string>{"a", "é", "日", "🙂"});
  CHECK(utf8_chars("").empty());
}

TEST_CASE("utf8: invalid sequences throw naming the source, line and byte") {
  CHECK_THROWS_WITH_AS(utf8_chars("ok\nab\x80", "f.txt"),
                       doctest::Contains("utf8: f.txt:2: invalid UTF-8: a continuation byte without a lead byte "
                                         "(byte 0x80 at offset 5)"),
                       Error);
  CHECK_THROWS_WITH_AS(utf8_chars("x\xE6\x97"), doctest::Contains("text:1: invalid UTF-8: the sequence is cut off"), Error);
  CHECK_THROWS_WITH_AS(utf8_chars("\xC3("), doctest::Contains("expected a continuation byte (byte 0x28 at offset 1)"),
                       Error);
  CHECK_THROWS_WITH_AS(utf8_chars("\xC0\xAF"), doctest::Contains("an overlong encoding"), Error);      // '/' in 2 bytes
  CHECK_THROWS_WITH_AS(utf8_chars("\xED\xA0\x80"), doctest::Contains("a UTF-16 surrogate"), Error);   // U+D800
  CHECK_THROWS_WITH_AS(utf8_chars("\xF4\x90\x80\x80"), doctest::Contains("above U+10FFFF"), Error);  // U+110000
  CHECK_THROWS_WITH_AS(utf8_chars("\xFF"), doctest::Contains("not a lead byte"), Error);
}

TEST_CASE("char tokenizer: round trip of multibyte text, sorted vocabulary, unknown characters") {
  const std::string text = "héllo wörld, 日本語 🙂!";
  CharTokenizer tok = CharTokenizer::from_text(text);
  // distinct code points: h é l o ' ' w ö r d , 日 本 語 🙂 ! = 15
  CHECK(tok.size() == kNumReserved + 15);
  std::vector<int64_t> ids = tok.encode(text);
  CHECK(ids.size() == 19);  // characters, not the 30 bytes (é ö: 2 each, 日本語: 3 each, 🙂: 4)
  CHECK(text.size() == 30);
  CHECK(tok.decode(ids) == text);
  // Sorted by code point: ' ' (U+20) first, '🙂' (U+1F642) last.
  CHECK(tok.vocab().token(kNumReserved) == " ");
  CHECK(tok.vocab().token(tok.size() - 1) == "🙂");
  CHECK(tok.vocab().id("é") < tok.vocab().id("ö"));
  CHECK(tok.encode("hé") == std::vector<int64_t>{tok.vocab().id("h"), tok.vocab().id("é")});
  CHECK_THROWS_WITH_AS(tok.encode("hé?", "p.txt"), doctest::Contains("p.txt:1: the character \"?\" is not in"), Error);
  CHECK(tok.decode({kBosId, tok.vocab().id("h"), kPadId}) == "<bos>h<pad>");
  CHECK(tok.decode({kBosId, tok.vocab().id("h"), kPadId}, true) == "h");

  CharTokenizer abc = CharTokenizer::from_alphabet("cab");  // the order written
  CHECK(abc.encode("abc") == std::vector<int64_t>{6, 7, 5});
}

TEST_CASE("char tokenizer: save and load, and only single characters") {
  CharTokenizer tok = CharTokenizer::from_text("a b\nç\t\\");
  TempFile file("chars.vocab");
  tok.save(file.path());
  CharTokenizer back = CharTokenizer::load(file.path());
  CHECK(back == tok);
  CHECK(back.decode(back.encode("ç a\n")) == "ç a\n");

  CHECK_THROWS_WITH_AS(CharTokenizer(Vocab({"a", "ab"})),
                       doctest::Contains("CharTokenizer: token 6 \"ab\" is not a single character"), Error);
  CHECK_THROWS_WITH_AS(tok.decode({99}), doctest::Contains("Vocab: id 99 is out of range"), Error);
}
