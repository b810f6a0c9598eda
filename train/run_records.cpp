#include "train/run_records.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include "core/error.h"
#include "train/run_lock.h"

namespace tg::train {

namespace {

namespace fs = std::filesystem;

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ec_a, ec_b;
  const fs::path ca = fs::weakly_canonical(a, ec_a), cb = fs::weakly_canonical(b, ec_b);
  return !ec_a && !ec_b && ca == cb;
}

fs::path directory_of(const fs::path& path) { return path.has_parent_path() ? path.parent_path() : fs::path("."); }

}  // namespace

std::vector<fs::path> run_records(const fs::path& checkpoint, const TrainConfig* config) {
  const fs::path dir = directory_of(checkpoint);
  std::vector<fs::path> records{checkpoint, dir / "checkpoint.safetensors", dir / "metrics.jsonl",
                                dir / "metrics.csv", dir / kRunLockFile};
  if (config != nullptr)
    for (const std::string* data : {&config->data, &config->val_data})
      if (!data->empty()) records.push_back(path_in_run(*data, dir));
  return records;
}

void refuse_run_record(const char* op, std::string_view flag, const fs::path& out, std::vector<fs::path> records) {
  std::error_code ignored;
  const fs::path resolved = fs::weakly_canonical(out, ignored);  // where a link at `out` leads
  for (const fs::path& dir : {directory_of(out), directory_of(resolved)})
    if (fs::exists(dir / "checkpoint.safetensors", ignored) || fs::exists(dir / "metrics.jsonl", ignored))
      for (fs::path& record : run_records(dir / "checkpoint.safetensors")) records.push_back(std::move(record));
  for (const fs::path& record : records)
    if (same_file(out, record))
      throw Error(op, fmt::format("{} {}: that is {}, a record of the run, which no output replaces: give another "
                                  "file", flag, out.string(), record.string()));
}

}  // namespace tg::train
