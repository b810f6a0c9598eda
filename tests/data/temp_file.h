#pragma once
// A file in the temp directory for the duration of a test, removed afterwards. The process id
// in its name keeps test cases that CTest runs in parallel apart.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tg::test {

class TempFile {
 public:
  // `name` ends with the extension the code under test looks at ("tags.tsv").
  explicit TempFile(const std::string& name, const std::string& content = "")
      : path_((std::filesystem::temp_directory_path() / ("tg_" + std::to_string(getpid()) + "_" + name)).string()) {
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tg::test
