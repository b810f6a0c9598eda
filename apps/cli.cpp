#include "apps/cli.h"

#include <omp.h>

#include <algorithm>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/error.h"

namespace tg::cli {

namespace {

CLI::Validator number_check(bool (*ok)(double), const char* rule) {
  return CLI::Validator(
      [ok, rule](std::string& value) {
        double x = 0;
        if (CLI::detail::lexical_cast(value, x) && ok(x)) return std::string();
        return fmt::format("must be {}, got {}", rule, value);
      },
      rule);
}

}  // namespace

CLI::Validator positive() {
  return number_check([](double x) { return x > 0; }, "> 0");
}

CLI::Validator non_negative() {
  return number_check([](double x) { return x >= 0; }, ">= 0");
}

int set_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
  return omp_get_max_threads();
}

int run(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  CLI::App app("tapegrad: a small tape-based autograd framework that trains toy Transformers", "tapegrad");
  app.require_subcommand(1);
  auto io = std::make_shared<Io>(Io{out, err});
  add_train_command(app, io);
  add_eval_command(app, io);
  add_sample_command(app, io);
  add_trace_command(app, io);
  add_gradcheck_command(app, io);

  const char* commands[] = {"train", "eval", "sample", "trace", "gradcheck"};
  if (args.size() > 1 && !args[1].starts_with("-") &&
      std::find(std::begin(commands), std::end(commands), args[1]) == std::end(commands)) {
    fmt::print(err, "tapegrad: unknown command '{}' (train, eval, sample, trace or gradcheck)\n", args[1]);
    fmt::print(err, "Run 'tapegrad --help' for the commands.\n");
    return 2;
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    std::ostringstream o, e_out;
    const int code = app.exit(e, o, e_out);
    std::fputs(o.str().c_str(), out);
    std::fputs(e_out.str().c_str(), err);
    if (code == 0) return 0;  // --help
    fmt::print(err, "Run 'tapegrad --help' or 'tapegrad <command> --help' for the options.\n");
    return 2;
  } catch (const std::exception& e) {  // tg::Error from a command, or a failed system call
    std::fflush(out);
    fmt::print(err, "tapegrad: error: {}\n", e.what());
    return 1;
  }
  return io->status;
}

}  // namespace tg::cli
