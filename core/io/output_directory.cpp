#include "core/io/output_directory.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"

namespace tg {

namespace {

namespace fs = std::filesystem;

constexpr int kDirectoryCreateAttempts = 100;

// "runs/x/" is the directory "runs/x".
fs::path without_trailing_slash(fs::path path) { return path.has_filename() ? path : path.parent_path(); }

// `path`, once the directories it goes in exist.
const fs::path& with_parents(const char* op, const fs::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) throw Error(op, fmt::format("cannot write {}: cannot create its parent directories: {}", path.string(),
                                      ec.message()));
  return path;
}

}  // namespace

OutputDirectory::OutputDirectory(const char* op, fs::path path, std::vector<std::string> replaceable)
    : op_(op),
      path_(without_trailing_slash(std::move(path))),
      replaceable_(std::move(replaceable)),
      parent_(op, with_parents(op, path_)) {
  if (path_.empty() || path_.filename() == "." || path_.filename() == "..")
    throw Error(op_, fmt::format("{}: give the directory to write by its own name (not \".\" or \"..\")",
                                 path_.string()));
  check_replaceable();
  for (int attempt = 0; attempt < kDirectoryCreateAttempts && temp_path_.empty(); ++attempt) {
    const std::string name = temporary_name(path_.filename());
    if (::mkdirat(parent_.fd(), name.c_str(), 0777) == 0) temp_path_ = path_.parent_path() / name;
    else if (errno != EEXIST)
      throw Error(op_, fmt::format("cannot write {}: cannot create a temporary directory beside it: {}",
                                   path_.string(), std::strerror(errno)));
  }
  if (temp_path_.empty())
    throw Error(op_, fmt::format("cannot write {}: no free temporary name beside it", path_.string()));
}

OutputDirectory::~OutputDirectory() {
  if (committed_) return;
  std::error_code ignored;
  fs::remove_all(temp_path_, ignored);
}

void OutputDirectory::check_replaceable() const {
  struct stat st {};
  if (::fstatat(parent_.fd(), path_.filename().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return;
    throw Error(op_, fmt::format("{}: cannot look at it: {}", path_.string(), std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode))
    throw Error(op_, fmt::format("{} is a symbolic link: give the directory itself (a link is never followed)",
                                 path_.string()));
  if (!S_ISDIR(st.st_mode)) throw Error(op_, fmt::format("{} exists and is not a directory", path_.string()));
  std::error_code ec;
  for (fs::directory_iterator it(path_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (std::find(replaceable_.begin(), replaceable_.end(), name) == replaceable_.end())
      throw Error(op_, fmt::format("{} holds {}, which is not its own: the whole directory is replaced, so give a "
                                   "new directory, an empty one or an earlier one of its own (holding only {})",
                                   path_.string(), name, fmt::join(replaceable_, ", ")));
  }
  if (ec) throw Error(op_, fmt::format("{}: cannot list it: {}", path_.string(), ec.message()));
}

void OutputDirectory::commit() {
  check_replaceable();
  const int dir = parent_.fd();
  const std::string name = path_.filename().string(), temp = temp_path_.filename().string();
  std::error_code ignored;  // an earlier directory left under a temporary name is harmless
  if (::renameat2(dir, temp.c_str(), dir, name.c_str(), RENAME_NOREPLACE) == 0) {
    committed_ = true;
  } else if (errno == EEXIST && ::renameat2(dir, temp.c_str(), dir, name.c_str(), RENAME_EXCHANGE) == 0) {
    committed_ = true;
    fs::remove_all(temp_path_, ignored);  // the earlier directory, now under the temporary name
  } else if (errno == EINVAL) {  // either flag unsupported by the file system
    const std::string aside = temporary_name(path_.filename());
    const bool earlier = ::renameat(dir, name.c_str(), dir, aside.c_str()) == 0;
    if (!earlier && errno != ENOENT) fail_rename("cannot move the earlier directory aside");
    if (::renameat(dir, temp.c_str(), dir, name.c_str()) != 0) {
      const int error = errno;
      if (earlier) ::renameat(dir, aside.c_str(), dir, name.c_str());
      errno = error;
      fail_rename("cannot rename the new directory into place");
    }
    committed_ = true;
    if (earlier) fs::remove_all(path_.parent_path() / aside, ignored);
  } else {
    fail_rename("cannot rename the new directory into place");
  }
  parent_.sync(op_, path_);
}

void OutputDirectory::fail_rename(const char* step) const {
  throw Error(op_, fmt::format("cannot write {}: {}: {}", path_.string(), step, std::strerror(errno)));
}

}  // namespace tg
