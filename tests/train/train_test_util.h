#pragma once
// What the train/ and CLI tests share: a scratch run directory, a tiny fast config, reading
// whole files, running the tapegrad program in-process with its output captured, reading a
// number from its output, and setting an environment variable for a scope.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "apps/cli.h"
#include "data/grammar_corpus.h"
#include "train/config.h"
#include "train/run_data.h"

namespace tg::test {

// A directory in the temp directory for the duration of a test, removed with its contents.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("tg_" + std::to_string(getpid()) + "_" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// A model and run small enough for a unit test (milliseconds per step in a debug build). The
// lm task reads a short grammar corpus written into `out` (the full one takes a second to index),
// its SHA-256 recorded as train records a --data file's.
inline train::TrainConfig tiny_config(const std::string& task, const std::filesystem::path& out) {
  train::TrainConfig c;
  c.task = task;
  if (task == "lm") {
    std::filesystem::create_directories(out);
    c.data = (out / "corpus.txt").string();
    data::write_grammar_corpus(c.data, 400);
  }
  c.min_len = 1, c.max_len = 4, c.block_size = 16, c.val_examples = 64;
  c.d_model = 32, c.heads = 2, c.layers = 1, c.ff = 64;
  c.steps = 60, c.batch_size = 16, c.lr = 1e-2, c.warmup = 10;
  c.eval_every = 0, c.log_every = 10, c.eval_batches = 2;
  c.out = out.string();
  train::record_data_hash(c, train::RunDataFile::data);  // the run reads its data only with the file's hash
  return c;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The command line of a copy-task run of a few milliseconds a step.
inline std::vector<std::string> tiny_run(const std::filesystem::path& out, int steps) {
  return {"train", "--task", "copy", "--steps", std::to_string(steps), "--warmup", "1", "--d-model", "16", "--heads",
          "2", "--layers", "1", "--ff", "16", "--batch-size", "8", "--val-examples", "16", "--eval-batches", "1",
          "--out", out.string()};
}

// `train` of a small gpt on the text `corpus` for 3 steps, into `out`, with the flags `extra` after.
inline std::vector<std::string> tiny_gpt_run(const std::string& corpus, const std::string& out,
                                             const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"train", "--task", "lm", "--arch", "gpt", "--data", corpus, "--block-size", "12",
                                   "--d-model", "16", "--heads", "2", "--layers", "2", "--ff", "32", "--dropout",
                                   "0.1", "--batch-size", "8", "--steps", "3", "--warmup", "1", "--eval-batches",
                                   "1", "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

struct CliResult {
  int status;
  std::string out, err;
};

// `tapegrad args...`, in-process.
inline CliResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "tapegrad");
  char *out_buf = nullptr, *err_buf = nullptr;
  size_t out_len = 0, err_len = 0;
  std::FILE* out = open_memstream(&out_buf, &out_len);
  std::FILE* err = open_memstream(&err_buf, &err_len);
  const int status = cli::run(args, out, err);
  std::fclose(out);
  std::fclose(err);
  CliResult r{status, std::string(out_buf, out_len), std::string(err_buf, err_len)};
  std::free(out_buf);
  std::free(err_buf);
  return r;
}

// The number after `label` in `text` ("loss 1.2345"); fails the test when there is none.
inline double number_after(const std::string& text, const std::string& label) {
  std::smatch m;
  const std::regex pattern(label + " ([0-9.]+)");
  REQUIRE_MESSAGE(std::regex_search(text, m, pattern), "no \"", label, " <number>\" in: ", text);
  return std::stod(m[1]);
}

// An environment variable set (or, with nullopt, unset) for the duration of a scope, then restored.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) setenv(name_.c_str(), value->c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ~ScopedEnv() {
    if (old_) setenv(name_.c_str(), old_->c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace tg::test
