#pragma once
// Writing a text file whole or not at all: the text goes to "<path>.tmp" beside it, and
// commit() renames that over `path`, so that a reader never sees half a file and a failure
// leaves an earlier file as it was. Destroyed without commit(), it removes the temporary file.
// Errors are tg::Error(op, "<path>: <what is wrong>").
//
//   AtomicTextFile file("eval", "predictions.jsonl");
//   file.stream() << line << '\n';
//   file.commit();
#include <filesystem>
#include <fstream>
#include <string>

namespace tg {

class AtomicTextFile {
 public:
  AtomicTextFile(const char* op, std::filesystem::path path);
  ~AtomicTextFile();
  AtomicTextFile(const AtomicTextFile&) = delete;
  AtomicTextFile& operator=(const AtomicTextFile&) = delete;

  std::ostream& stream() { return out_; }
  void commit();

 private:
  const char* op_;
  std::filesystem::path path_, temp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace tg
