#pragma once
// What cli.cpp needs of each subcommand: a function that registers it on the app. Internal to
// the program.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

namespace tg::cli {

struct Io {
  std::FILE* out;
  std::FILE* err;
  int status = 0;  // a command may set a non-zero exit status without an error (gradcheck failures)
  bool parse_only = false;  // check the arguments, then return without running the command
  std::string activity;     // what the command is doing, named in an out-of-memory message
};

void add_train_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_eval_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_sample_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_trace_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_gradcheck_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_report_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_export_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_import_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_lesson_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_experiment_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_explore_command(CLI::App& app, const std::shared_ptr<Io>& io);
void add_tokenizer_command(CLI::App& app, const std::shared_ptr<Io>& io);

// Number checks whose messages name the range ("--steps: must be an integer in [1, 1099511627776],
// got 99999999999999999999"): the whole text must be the number, nothing is clamped, and NaN
// and the infinities are refused.
CLI::Validator integer_in(int64_t lo, int64_t hi, const std::string& note = "");
CLI::Validator number_in(double lo, double hi);  // a finite number in [lo, hi]
CLI::Validator positive_number();                // a finite number > 0
CLI::Validator non_negative_number();            // a finite number >= 0
CLI::Validator seed_number();                    // an unsigned 64-bit integer
CLI::Validator device_name();                    // cpu, cuda or cuda:N (train::parse_device)
CLI::Validator open_fraction();                  // a finite number in (0, 1)
CLI::Validator probability_mass();               // a finite number in (0, 1]
CLI::Validator token_name();                     // a non-empty string (a vocabulary's token)
CLI::Validator lesson_edit();  // TENSOR[INDEX]=VALUE or SETTING=VALUE (lessons::parse_lesson_edit)

// A path that a command stores in JSON (a run's directory and data files in its checkpoint, a
// run's name in report.html, explore's title) must be UTF-8, which JSON text is: checked as the
// flag is parsed, so that no run fails at its first checkpoint after training. non_utf8_path
// says what is wrong ("" for a UTF-8 path), showing the bytes outside printable ASCII as \xHH.
std::string non_utf8_path(const std::string& path);
CLI::Validator utf8_path();

// --threads: 0 (OpenMP's default) to kThreadsPerCore threads per core. OpenMP itself fails
// (a crash) when asked for tens of thousands.
inline constexpr int kThreadsPerCore = 4;
int max_threads();
CLI::Validator thread_count();

// Sets the OpenMP thread count (0 leaves OpenMP's default) and returns the count in force.
int set_threads(int threads);

}  // namespace tg::cli
