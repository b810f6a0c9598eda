// The tapegrad program: see apps/cli.h.
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "ops/matmul/gemm_tuning.h"

namespace {

// Output to a reader that has gone (a closed pipe) fails with EPIPE and is reported, instead of
// SIGPIPE ending the process in the middle of a training step or before its exit status is set.
// A standard descriptor the caller closed (`tapegrad train ... >&-`) is opened on /dev/null:
// else the first file the program opens (a run's lock file, its metrics) would take its number
// and receive what is printed.
void prepare_process() {
  std::signal(SIGPIPE, SIG_IGN);
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd)
    if (::fcntl(fd, F_GETFD) == -1) ::open("/dev/null", O_RDWR);  // takes the lowest free number: fd
}

// GEMM tuning (ops/matmul/gemm_tuning.h), unless TAPEGRAD_GEMM_TUNING=off: the products' tiles
// timed at their first use, kept in the user's cache.
void start_gemm_tuning() {
  const std::string warning = tg::gemm_tuning_start_from_environment();
  if (!warning.empty()) std::fprintf(stderr, "tapegrad: %s\n", warning.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  prepare_process();
  start_gemm_tuning();
  return tg::cli::run(std::vector<std::string>(argv, argv + argc));
}
