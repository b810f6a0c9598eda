#pragma once
// Opening a user's file for reading. Every reader of a file the user names (safetensors,
// labelled data, text corpora) goes through InputFile, so that what is not a regular file is
// refused with its path and kind instead of blocking forever (a FIFO with no writer) or
// failing with a message that names nothing (a directory):
//   "load_safetensors: runs/x: is a directory, not a regular file"
//   "read_text_file: in.txt: is a FIFO (named pipe), not a regular file"
//   "read_text_file: gone.txt: cannot open: No such file or directory"
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace tg {

class InputFile {
 public:
  // Opens `path` for reading without blocking and checks that it is a regular file. Errors are
  // tg::Error(op, "<path>: <what is wrong>").
  InputFile(const char* op, std::filesystem::path path);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  InputFile& operator=(InputFile&&) = delete;

  // In bytes, as stat said when it was opened: 0 for the files of /proc and /sys, which have
  // content all the same (read_up_to and read_all read them to their end).
  uint64_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }

  // Reads exactly `nbytes` at `offset`; a file that ends first (truncated meanwhile) is an error.
  void read_at(void* data, size_t nbytes, uint64_t offset) const;
  // Reads at most `nbytes` at `offset`: fewer only where the file ends, 0 at its end.
  size_t read_up_to(void* data, size_t nbytes, uint64_t offset) const;
  // The whole file, to its end (whatever size() says).
  std::string read_all() const;

  // tg::Error(op, "<path>: <what>").
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const char* op_;
  std::filesystem::path path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace tg
