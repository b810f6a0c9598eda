#pragma once
// What cli.cpp needs of each subcommand: a function that registers it on the app. Internal to
// the program.
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

namespace tg::cli {

struct Io {
  std::FILE* out;
  std::FILE* err;
  int status = 0;  // a command may set a non-zero exit status without an error (gradcheck failures)
};

void add_train_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_eval_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_sample_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_trace_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_gradcheck_command(CLI::App& app, const std::shared_ptr<Io>& io);

// Number checks whose messages stay short ("--steps: must be > 0, got -5").
CLI::Validator positive();
CLI::Validator non_negative();

// Sets the OpenMP thread count (0 leaves OpenMP's default) and returns the count in force.
int set_threads(int threads);

}  // namespace tg::cli
