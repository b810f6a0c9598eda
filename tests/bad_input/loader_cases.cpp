// Bad-input matrix rows: the file loaders (safetensors, checkpoints, labelled files, text
// corpora). See bad_input_case.h. Each row writes its file into one scratch directory.
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "bad_input/bad_input_case.h"
#include "core/factories.h"
#include "core/io/safetensors.h"
#include "core/safetensors_test_util.h"
#include "data/char_lm.h"
#include "data/labelled_file.h"
#include "train/checkpoint.h"

namespace tg::test {

namespace {

namespace fs = std::filesystem;

// The scratch directory of this process's loader rows, removed at exit.
const fs::path& scratch() {
  static const ScratchDir dir;
  return dir.path;
}

// A file in the scratch directory holding `bytes`; its path.
std::string file(const std::string& name, const std::string& bytes) {
  const fs::path path = scratch() / name;
  write_bytes(path, bytes);
  return path.string();
}

// {"x": <entry>} with dtype, shape and offsets as given, plus `data`.
std::string one_tensor(const std::string& dtype, const std::string& shape, const std::string& offsets,
                       const std::string& data) {
  return safetensors_bytes(
      R"({"x":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}}", data);
}

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A row loading `path` with load_safetensors; the outcome must name the file.
BadInputCase safetensors_row(std::string name, const std::string& path, std::vector<std::string> expected) {
  expected.insert(expected.begin(), "load_safetensors: " + path + ": ");
  return {std::move(name), [path] { return outcome_of([&] { load_safetensors(path); }); }, std::move(expected)};
}

BadInputCase labelled_row(std::string name, const std::string& path, std::vector<std::string> expected) {
  expected.insert(expected.begin(), path);
  return {std::move(name), [path] { return outcome_of([&] { data::read_labelled_file(path); }); }, std::move(expected)};
}

BadInputCase checkpoint_row(std::string name, const std::string& path, std::vector<std::string> expected) {
  expected.insert(expected.begin(), "checkpoint: " + path + ": ");
  return {std::move(name), [path] { return outcome_of([&] { train::load_checkpoint(path); }); }, std::move(expected)};
}

// A saved file with a bit of tensor w's data flipped.
std::string corrupt_file(const std::string& name) {
  const fs::path path = scratch() / name;
  save_safetensors(path, {{"w", arange(0, 16)}});
  std::string bytes = read_bytes(path);
  bytes[bytes.size() - 9] ^= 0x04;
  write_bytes(path, bytes);
  return path.string();
}

std::string fifo(const std::string& name) {
  const fs::path path = scratch() / name;
  ::mkfifo(path.c_str(), 0600);
  return path.string();
}

std::string directory(const std::string& name) {
  const fs::path path = scratch() / name;
  fs::create_directory(path);
  return path.string();
}

}  // namespace

std::vector<BadInputCase> loader_cases() {
  const std::string four(4, '\0'), eight(8, '\0');
  const std::string x = R"("dtype":"F32","shape":[2],"data_offsets":[0,8])";
  std::string saved_bytes;
  {
    const fs::path path = scratch() / "saved.safetensors";
    save_safetensors(path, {{"w", arange(0, 16)}});
    saved_bytes = read_bytes(path);
  }
  std::string seventeen = "[1";
  for (int i = 1; i < 17; ++i) seventeen += ",1";
  seventeen += "]";

  return {
      safetensors_row("safetensors: an empty file", file("empty.safetensors", ""),
                      {"file is 0 bytes, too short for the 8-byte header length"}),
      safetensors_row("safetensors: a missing file", (scratch() / "missing.safetensors").string(),
                      {"cannot open: No such file or directory"}),
      safetensors_row("safetensors: a FIFO (would block forever)", fifo("fifo.safetensors"),
                      {"is a FIFO (named pipe), not a regular file"}),
      safetensors_row("safetensors: a directory", directory("dir.safetensors"), {"is a directory, not a regular file"}),
      safetensors_row("safetensors: header length past the end",
                      file("long_length.safetensors", raw_bytes(uint64_t{1000}) + "{}"),
                      {"header length 1000 is larger than the 2 bytes after it"}),
      safetensors_row(
          "safetensors: a header over the size limit",
          file("huge_header.safetensors", safetensors_bytes(std::string(kSafetensorsMaxHeaderBytes + 8, ' '), "")),
          {"header length 2097160 exceeds the limit of 2097152 bytes"}),
      safetensors_row("safetensors: a truncated file",
                      file("truncated.safetensors", saved_bytes.substr(0, saved_bytes.size() - 10)),
                      {"tensor 'w': data_offsets [0, 64] are out of range for a data region of 54 bytes"}),
      safetensors_row(
          "safetensors: a dtype nested 100000 deep",
          file("deep_dtype.safetensors",
               safetensors_bytes(R"({"x":{"dtype":)" + nested(100000) + R"(,"shape":[],"data_offsets":[0,4]}})", four)),
          {"header nests arrays and objects more than 8 deep"}),
      safetensors_row(
          "safetensors: a shape nested 100000 deep",
          file("deep_shape.safetensors",
               safetensors_bytes(R"({"x":{"dtype":"F32","shape":)" + nested(100000) + R"(,"data_offsets":[0,4]}})",
                                 four)),
          {"header nests arrays and objects more than 8 deep"}),
      safetensors_row(
          "safetensors: __metadata__ nested 100000 deep",
          file("deep_metadata.safetensors", safetensors_bytes(R"({"__metadata__":{"k":)" + nested(100000) + "}}", "")),
          {"header nests arrays and objects more than 8 deep"}),
      safetensors_row("safetensors: a number 1e400 in the header",
                      file("1e400.safetensors", safetensors_bytes(R"({"a":1e400})", "")),
                      {"header is not valid JSON", "number overflow parsing '1e400'"}),
      safetensors_row("safetensors: a header that is an array",
                      file("array.safetensors", safetensors_bytes("[1,2]", "")),
                      {"header is JSON array, not an object"}),
      safetensors_row("safetensors: an unsupported dtype",
                      file("f16.safetensors", one_tensor("F16", "[2]", "[0,4]", four)),
                      {"tensor 'x' has dtype \"F16\"; tapegrad reads only F32, F64, I64 and BOOL"}),
      safetensors_row("safetensors: 17 dimensions",
                      file("rank17.safetensors", one_tensor("F32", seventeen, "[0,4]", four)),
                      {"tensor 'x': shape must be an array of at most 16 sizes"}),
      safetensors_row("safetensors: a negative size",
                      file("negative.safetensors", one_tensor("F32", "[-2]", "[0,8]", eight)),
                      {"tensor 'x': shape size must be an integer in [0, 9223372036854775807], got -2"}),
      safetensors_row("safetensors: offsets past the data",
                      file("past_end.safetensors", one_tensor("F32", "[4]", "[0,16]", eight)),
                      {"tensor 'x': data_offsets [0, 16] are out of range for a data region of 8 bytes"}),
      safetensors_row("safetensors: shape and offsets disagree",
                      file("mismatch.safetensors", one_tensor("F32", "[3]", "[0,8]", eight)),
                      {"tensor 'x': data_offsets [0, 8] hold 8 bytes but F32 (3,) needs 12"}),
      safetensors_row("safetensors: overlapping tensors",
                      file("overlap.safetensors",
                           safetensors_bytes(
                               R"({"x":{)" + x + R"(},"y":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight)),
                      {"tensor 'y' at data_offsets [4, 8] overlaps the tensor before it"}),
      safetensors_row("safetensors: a hole before the first tensor",
                      file("hole.safetensors", one_tensor("F32", "[1]", "[4,8]", eight)),
                      {"data bytes [0, 4) belong to no tensor (a hole before 'x')"}),
      safetensors_row(
          "safetensors: a duplicate tensor name",
          file("duplicate.safetensors", safetensors_bytes(R"({"x":{)" + x + R"(},"x":{)" + x + "}}", eight)),
          {"tensor name 'x' appears twice in the header"}),
      safetensors_row("safetensors: a metadata value that is not a string",
                      file("meta_number.safetensors", safetensors_bytes(R"({"__metadata__":{"epoch":3}})", "")),
                      {"__metadata__ 'epoch' is 3, not a string"}),
      safetensors_row("safetensors: a BOOL byte other than 0 or 1",
                      file("bool.safetensors", one_tensor("BOOL", "[3]", "[0,3]", std::string("\x01\x00\x02", 3))),
                      {"BOOL tensor 'x' holds byte 2 at element 2; expected 0 or 1"}),
      safetensors_row("safetensors: a flipped bit in a tensor's data", corrupt_file("flipped.safetensors"),
                      {"tensor 'w': its bytes have CRC-32", "(the data is corrupt)"}),
      checkpoint_row("checkpoint: a flipped bit in a tensor's data", corrupt_file("flipped_checkpoint.safetensors"),
                     {"not a readable checkpoint", "tensor 'w': its bytes have CRC-32"}),
      checkpoint_row("checkpoint: a safetensors file that is not a checkpoint", file("plain.safetensors", saved_bytes),
                     {"metadata has no \"format\" entry"}),
      checkpoint_row("checkpoint: a FIFO", fifo("fifo_checkpoint.safetensors"),
                     {"not a readable checkpoint", "is a FIFO (named pipe), not a regular file"}),
      labelled_row("jsonl: a token nested 100000 deep",
                   file("deep.jsonl", "{\"input\": [" + nested(100000) + "], \"output\": [\"X\"]}\n"),
                   {":1: arrays and objects nest more than 8 deep"}),
      labelled_row("jsonl: a number 1e400", file("1e400.jsonl", "{\"input\": [1e400], \"output\": [\"X\"]}\n"),
                   {":1: bad JSON", "number overflow parsing '1e400'"}),
      labelled_row(
          "jsonl: a token that is null",
          file("null.jsonl", "{\"input\": [\"a\"], \"output\": [\"X\"]}\n{\"input\": [null], \"output\": [\"X\"]}\n"),
          {":2: input[0] must be a string or a number, got null"}),
      labelled_row("jsonl: input that is not an array",
                   file("string.jsonl", "{\"input\": \"a\", \"output\": [\"X\"]}\n"),
                   {":1: \"input\" must be an array of tokens"}),
      labelled_row("jsonl: a line that is not an object", file("array.jsonl", "[\"a\", \"X\"]\n"),
                   {":1: expected a JSON object with \"input\" and \"output\""}),
      labelled_row("tsv: three columns", file("columns.tsv", "a\tX\n a\tX\tY\n"),
                   {":2: expected input tokens, one tab, output tokens"}),
      labelled_row("tsv: input and output lengths differ", file("lengths.tsv", "the cat sat\tDET NOUN\n"),
                   {":1: input has 3 tokens but output has 2"}),
      labelled_row("tsv: a blank line in the middle", file("blank.tsv", "a\tX\n\nb\tY\n"), {":2: empty line"}),
      labelled_row("tsv: invalid UTF-8", file("utf8.tsv", "a\tX\n\xff\tY\n"), {":2: invalid UTF-8"}),
      labelled_row("labelled file: a FIFO (would block forever)", fifo("fifo.tsv"),
                   {"read_text_file", "is a FIFO (named pipe), not a regular file"}),
      labelled_row("labelled file: a directory", directory("dir.jsonl"),
                   {"read_text_file", "is a directory, not a regular file"}),
      labelled_row("labelled file: an unknown extension", file("data.csv", "a,X\n"),
                   {"unknown format (expected a .tsv or .jsonl file)"}),
      {"text corpus: a FIFO (would block forever)",
       [path = fifo("fifo.txt")] { return outcome_of([&] { data::char_lm_corpus_from_file(path, 8); }); },
       {"read_text_file: " + (scratch() / "fifo.txt").string() + ": is a FIFO (named pipe), not a regular file"}},
      {"text corpus: a directory",
       [path = directory("corpus_dir")] { return outcome_of([&] { data::char_lm_corpus_from_file(path, 8); }); },
       {"read_text_file: " + (scratch() / "corpus_dir").string() + ": is a directory, not a regular file"}},
      {"text corpus: too short for the block size",
       [path = file("short.txt", "abc")] { return outcome_of([&] { data::char_lm_corpus_from_file(path, 8); }); },
       {(scratch() / "short.txt").string(), "too few for block_size 8"}},
      {"labelled file: a validation file with a token training never saw",
       [train = file("known.tsv", "a b\tX Y\n"), val = file("val_unknown.tsv", "a\tX\nb z\tY X\n")] {
         return outcome_of([&] { data::load_labelled_task(train, val); });
       },
       {"encode_labelled: " + (scratch() / "val_unknown.tsv").string() + ":2: input token \"z\" (position 2)",
        "not in the model's input vocabulary"}},
      {"labelled file: a test file with an output the model cannot predict",
       [test = file("test_unknown.jsonl", "{\"input\": [\"a\"], \"output\": [\"W\"]}\n")] {
         return outcome_of([&] {
           data::encode_labelled(data::read_labelled_file(test), data::Vocab({"a"}), data::Vocab({"X"}), test);
         });
       },
       {(scratch() / "test_unknown.jsonl").string() + ":1: output token \"W\"", "model's output vocabulary"}},
  };
}

}  // namespace tg::test
