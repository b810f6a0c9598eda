#pragma once
// Every file tapegrad writes for a user goes through here (docs/design.md, "Untrusted input"),
// so that no write follows a symbolic link planted in a directory, and no reader ever sees
// half a file:
//
// OutputFile: the bytes go to a new file with a unique random name beside `path`
// ("<name>.tmp-<10 random characters>"), created relative to a descriptor of the parent
// directory with O_CREAT | O_EXCL | O_NOFOLLOW, so it is never an existing file or a link.
// commit() fsyncs it, renames it over `path` (renameat: a link at `path` is replaced, not
// followed) and fsyncs the directory. Destroyed without commit(), it removes its temporary file,
// and `path` is as it was. write_file_atomically() is the same in one call.
//
//   OutputFile file("eval", "predictions.jsonl");
//   file.stream() << line << '\n';
//   file.commit();
//
// AppendFile: an existing file (written first with OutputFile) opened with O_APPEND |
// O_NOFOLLOW, each line going out in one write(), so a crash leaves whole lines and at most
// one torn last line.
//
// Errors are tg::Error(op, "cannot write <path>: <the step that failed>: <strerror>"), e.g.
// "report: cannot write runs/a/report.html: No space left on device".
#include <array>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace tg {

// Writes all of `bytes` to `fd` (short writes and EINTR retried); a failed write throws
// tg::Error(op, "cannot write <path>: <strerror>").
void write_fully(const char* op, const std::filesystem::path& path, int fd, std::string_view bytes);

// A name for a new entry beside `name` in the same directory: "<name>.tmp-<random>" (at most
// 255 bytes). Each call draws a new suffix.
std::string temporary_name(const std::filesystem::path& name);

// A descriptor of the directory `path` goes in, closed when this goes.
class ParentDirectory {
 public:
  ParentDirectory(const char* op, const std::filesystem::path& path);
  ~ParentDirectory();
  ParentDirectory(const ParentDirectory&) = delete;
  ParentDirectory& operator=(const ParentDirectory&) = delete;
  int fd() const { return fd_; }
  // fsyncs the directory, so that a rename in it survives a crash.
  void sync(const char* op, const std::filesystem::path& path) const;

 private:
  int fd_;
};

class OutputFile {
 public:
  OutputFile(const char* op, std::filesystem::path path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Buffered; a failed write shows at the next write() or at commit().
  std::ostream& stream() { return stream_; }
  // Unbuffered (after what stream() holds): for large blocks.
  void write(std::string_view bytes);
  void commit();

  const std::filesystem::path& path() const { return path_; }
  // The temporary file's path, for a program that writes the file itself: it exists, empty,
  // until commit() puts it in place.
  std::filesystem::path temporary_path() const;

 private:
  // stream()'s buffer: drained into the file with write(), remembering the first error.
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(int fd);
    bool drain();
    int error() const { return error_; }

   protected:
    int_type overflow(int_type ch) override;
    int sync() override { return drain() ? 0 : -1; }

   private:
    int fd_;
    int error_ = 0;
    std::array<char, 65536> bytes_;
  };
  [[noreturn]] void fail(const char* step, int error) const;
  void flush_stream();

  const char* op_;
  std::filesystem::path path_;
  ParentDirectory dir_;
  std::string temp_name_;
  int fd_ = -1;
  Buffer buffer_;
  std::ostream stream_;
  bool committed_ = false;
};

// `content` as the whole of `path`, through an OutputFile.
void write_file_atomically(const char* op, const std::filesystem::path& path, std::string_view content);

class AppendFile {
 public:
  AppendFile(const char* op, std::filesystem::path path);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;
  // `line` and a newline in one write().
  void append_line(std::string_view line);

 private:
  const char* op_;
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace tg
