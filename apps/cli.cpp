#include "apps/cli.h"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apps/commands.h"
#include "core/error.h"
#include "core/io/untrusted_text.h"
#include "data/text.h"
#include "lessons/lesson.h"
#include "train/config.h"

namespace tg::cli {

namespace {

// The whole of `text` as a decimal integer of type T that T holds. A leading zero is refused:
// CLI11 would read "010" as octal.
template <class T> bool parse_exactly(const std::string& text, T& value) {
  const size_t digits = text.starts_with('-') ? 1 : 0;
  if (text.size() > digits + 1 && text[digits] == '0') return false;
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(text.data(), last, value);
  return ec == std::errc() && end == last && !text.empty();
}

bool parse_exactly(const std::string& text, double& value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno != ERANGE;
}

// A finite number in [lo, hi], with either end open; hi = infinity: any finite number above lo.
CLI::Validator number_check(double lo, double hi, bool lo_open, bool hi_open = false) {
  const std::string range = std::isinf(hi) ? fmt::format("{} {}", lo_open ? ">" : ">=", lo)
                                           : fmt::format("in {}{}, {}{}", lo_open ? "(" : "[", lo, hi, hi_open ? ")" : "]");
  return CLI::Validator(
      [=](std::string& text) {
        double x = 0;
        if (parse_exactly(text, x) && std::isfinite(x) && (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi))
          return std::string();
        return fmt::format("must be a finite number {}, got {}", range, text);
      },
      range);
}

// The machine's cores, asked once (each query reads /sys).
int cores() {
  static const int count = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return count;
}

// Whether `text` is a thread count in [1, max_threads()], or a comma-separated list of them (one
// per nesting level), blanks around each allowed: the forms libgomp reads in OMP_NUM_THREADS.
bool valid_thread_counts(std::string_view text) {
  if (text.empty() || text.ends_with(',')) return false;
  std::stringstream counts{std::string(text)};
  for (std::string count; std::getline(counts, count, ',');) {
    const size_t first = count.find_first_not_of(" \t\n"), last = count.find_last_not_of(" \t\n");
    int64_t n = 0;
    if (first == std::string::npos || !parse_exactly(count.substr(first, last + 1 - first), n) || n < 1 ||
        n > max_threads())
      return false;
  }
  return true;
}

// OMP_NUM_THREADS, OpenMP's default thread count: the --threads bound holds for it too (OpenMP
// crashes starting tens of thousands of threads, and thousands take seconds to start). Checked
// before any command runs, so before a parallel region starts the threads (libgomp has only
// read the variable so far). Where libgomp would warn about a malformed value and use its own
// default, tapegrad refuses it too.
void check_omp_num_threads() {
  const char* value = std::getenv("OMP_NUM_THREADS");
  if (value != nullptr && !valid_thread_counts(value))
    throw Error("OMP_NUM_THREADS",
                fmt::format("the environment variable is \"{}\"; OpenMP's thread count must be an integer in [1, {}] "
                            "({} per core, {} cores), or a comma-separated list of them (unset it, or set it within "
                            "that range)", excerpt(value), max_threads(), kThreadsPerCore, cores()));
}

// Out of memory: while doing what, with the flags that asked for it where the command said.
void print_out_of_memory(std::FILE* err, const Io& io, const std::string& detail) {
  fmt::print(err, "tapegrad: error: out of memory while {}{}\n",
             io.activity.empty() ? "starting" : visible_text(io.activity),
             detail.empty() ? "" : ": " + visible_text(detail, LineBreaks::keep));
}

int run_app(const std::vector<std::string>& args, std::FILE* out, std::FILE* err, bool parse_only) {
  CLI::App app("tapegrad: a small tape-based autograd framework that trains toy Transformers", "tapegrad");
  app.require_subcommand(1);
  auto io = std::make_shared<Io>(Io{.out = out, .err = err, .status = 0, .parse_only = parse_only, .activity = {}});
  add_train_command(app, io);
  add_eval_command(app, io);
  add_sample_command(app, io);
  add_trace_command(app, io);
  add_gradcheck_command(app, io);
  add_report_command(app, io);
  add_export_command(app, io);
  add_import_command(app, io);
  add_lesson_command(app, io);
  add_experiment_command(app, io);
  add_explore_command(app, io);
  add_tokenizer_command(app, io);

  const std::vector<const CLI::App*> commands =
      std::as_const(app).get_subcommands([](const CLI::App*) { return true; });
  if (args.size() > 1 && !args[1].starts_with("-") &&
      std::none_of(commands.begin(), commands.end(), [&](const CLI::App* c) { return c->check_name(args[1]); })) {
    std::vector<std::string> names;
    for (const CLI::App* command : commands) names.push_back(command->get_name());
    fmt::print(err, "tapegrad: unknown command '{}' ({})\n", visible_text(args[1]), fmt::join(names, ", "));
    fmt::print(err, "Run 'tapegrad --help' for the commands.\n");
    return 2;
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    if (!parse_only) check_omp_num_threads();  // the environment, not the arguments
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    std::ostringstream o, e_out;
    const int code = app.exit(e, o, e_out);
    std::fputs(o.str().c_str(), out);
    std::fputs(visible_text(e_out.str(), LineBreaks::keep).c_str(), err);
    if (code == 0) return 0;  // --help
    fmt::print(err, "Run 'tapegrad --help' or 'tapegrad <command> --help' for the options.\n");
    return 2;
  } catch (const std::bad_alloc&) {
    std::fflush(out);
    print_out_of_memory(err, *io, "");
    return 1;
  } catch (const Error& e) {
    std::fflush(out);
    if (std::strstr(e.what(), "cannot allocate") != nullptr) print_out_of_memory(err, *io, e.what());
    else fmt::print(err, "tapegrad: error: {}\n", visible_text(e.what(), LineBreaks::keep));
    return 1;
  } catch (const std::exception& e) {  // a failed system call
    std::fflush(out);
    fmt::print(err, "tapegrad: error: {}\n", visible_text(e.what(), LineBreaks::keep));
    return 1;
  }
  return io->status;
}

}  // namespace

CLI::Validator integer_in(int64_t lo, int64_t hi, const std::string& note) {
  const std::string range = fmt::format("[{}, {}]", lo, hi);
  return CLI::Validator(
      [=](std::string& text) {
        int64_t x = 0;
        if (parse_exactly(text, x) && x >= lo && x <= hi) return std::string();
        return fmt::format("must be an integer in {}{}, got {}", range, note, text);
      },
      range);
}

CLI::Validator number_in(double lo, double hi) { return number_check(lo, hi, false); }

CLI::Validator positive_number() { return number_check(0, HUGE_VAL, true); }

CLI::Validator non_negative_number() { return number_check(0, HUGE_VAL, false); }

CLI::Validator open_fraction() { return number_check(0, 1, true, true); }

CLI::Validator probability_mass() { return number_check(0, 1, true); }

CLI::Validator token_name() {
  return CLI::Validator(
      [](std::string& text) { return text.empty() ? std::string("a token cannot be the empty string") : std::string(); },
      "");
}

CLI::Validator lesson_edit() {
  return CLI::Validator(
      [](std::string& text) {
        try {
          lessons::parse_lesson_edit(text);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      },
      "");
}

CLI::Validator seed_number() {
  return CLI::Validator(
      [](std::string& text) {
        uint64_t x = 0;
        if (parse_exactly(text, x)) return std::string();
        return fmt::format("must be an integer in [0, {}], got {}", UINT64_MAX, text);
      },
      "[0, 2^64 - 1]");
}

std::string non_utf8_path(const std::string& path) {
  try {
    data::utf8_chars(path);
    return {};
  } catch (const Error&) {
    std::string shown;  // every byte outside printable ASCII as \xHH, so the message shows which
    for (const char c : path) {
      const auto byte = static_cast<unsigned char>(c);
      shown += byte == '\\' ? "\\\\" : byte >= 0x20 && byte < 0x7F ? std::string(1, c) : fmt::format("\\x{:02x}", byte);
    }
    return fmt::format("the path \"{}\" is not valid UTF-8, and tapegrad stores paths in JSON, which holds UTF-8 text "
                       "only: rename it, or give a link to it with a UTF-8 name", shown);
  }
}

CLI::Validator utf8_path() {
  return CLI::Validator([](std::string& text) { return non_utf8_path(text); }, "");
}

CLI::Validator device_name() {
  return CLI::Validator(
      [](std::string& text) {
        try {
          train::parse_device(text);
        } catch (const Error&) {
          return fmt::format("must be cpu, cuda or cuda:N, got {}", text);
        }
        return std::string();
      },
      "");
}

int max_threads() { return kThreadsPerCore * cores(); }

CLI::Validator thread_count() {
  return integer_in(0, max_threads(), fmt::format(" ({} per core, {} cores)", kThreadsPerCore, cores()));
}

int set_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
  return omp_get_max_threads();
}

int run(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  int status = run_app(args, out, err, /*parse_only=*/false);
  // A full disk or a closed pipe may show only here: the output was buffered. It makes a command
  // that succeeded fail; a status that says more (130: stopped by SIGINT, its checkpoint written)
  // stays. fputs, not fmt::print, which throws when `err` cannot be written either.
  errno = 0;
  const bool flushed = std::fflush(out) == 0;
  const bool written = flushed && !std::ferror(out);
  if (!written)
    std::fputs(fmt::format("tapegrad: error: writing the output failed: {}\n",
                           errno != 0 ? std::strerror(errno) : "a write failed").c_str(), err);
  const bool errors_written = std::fflush(err) == 0 && !std::ferror(err);
  if ((!written || !errors_written) && status == 0) status = 1;
  return status;
}

int parse_only(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  return run_app(args, out, err, /*parse_only=*/true);
}

}  // namespace tg::cli
