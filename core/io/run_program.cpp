#include "core/io/run_program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/untrusted_text.h"

extern char** environ;  // the program runs with tapegrad's environment

namespace tg {

namespace {

// A file descriptor, closed when this goes or on reset().
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// The two ends of one of the program's standard streams: ours and the one it gets.
struct Channel {
  Fd ours, theirs;
};

[[noreturn]] void fail_call(const char* op, const std::string& program, const char* call, int error) {
  throw Error(op, fmt::format("running {}: {} failed: {}", program, call, std::strerror(error)));
}

// The program's stdin is a socket rather than a pipe: writing to a program that has stopped
// reading (it failed, or exited early) then returns EPIPE (send with MSG_NOSIGNAL) instead of
// raising SIGPIPE, which would end tapegrad.
Channel input_channel(const char* op, const std::string& program) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) fail_call(op, program, "socketpair", errno);
  return {Fd(fds[0]), Fd(fds[1])};
}

Channel output_channel(const char* op, const std::string& program) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail_call(op, program, "pipe2", errno);
  return {Fd(fds[0]), Fd(fds[1])};
}

// posix_spawn's list of what the child does before exec: its stdin, stdout and stderr become
// `theirs` of each channel (dup2 clears close-on-exec on the copies; every other descriptor
// tapegrad opened is close-on-exec).
class StdioActions {
 public:
  StdioActions(const Channel& in, const Channel& out, const Channel& err) {
    posix_spawn_file_actions_init(&actions_);
    posix_spawn_file_actions_adddup2(&actions_, in.theirs.get(), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions_, out.theirs.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions_, err.theirs.get(), STDERR_FILENO);
  }
  ~StdioActions() { posix_spawn_file_actions_destroy(&actions_); }
  StdioActions(const StdioActions&) = delete;
  StdioActions& operator=(const StdioActions&) = delete;
  const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// Writes `input` to the program's stdin while reading its stdout and stderr, all at once: a
// program that writes before it has read all of its input would otherwise fill a pipe and wait
// for tapegrad, which would be waiting for it.
void exchange(const char* op, const std::string& program, Fd& in, std::string_view input, Fd& out,
              std::string& out_text, Fd& err, std::string& err_text) {
  if (input.empty()) in.reset();
  std::array<char, 65536> buffer;
  while (in.open() || out.open() || err.open()) {
    std::array<pollfd, 3> polled{};
    std::array<Fd*, 3> fds{};
    nfds_t n = 0;
    for (Fd* fd : {&in, &out, &err}) {
      if (!fd->open()) continue;
      polled[n] = {fd->get(), static_cast<short>(fd == &in ? POLLOUT : POLLIN), 0};
      fds[n++] = fd;
    }
    if (::poll(polled.data(), n, -1) < 0) {
      if (errno == EINTR) continue;
      fail_call(op, program, "poll", errno);
    }
    for (nfds_t i = 0; i < n; ++i) {
      if (polled[i].revents == 0) continue;
      Fd& fd = *fds[i];
      if (&fd == &in) {
        const size_t chunk = std::min(input.size(), buffer.size());
        const ssize_t sent = ::send(fd.get(), input.data(), chunk, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent >= 0) input.remove_prefix(static_cast<size_t>(sent));
        else if (errno == EPIPE || errno == ECONNRESET) fd.reset();  // it stopped reading: its status says why
        else if (errno != EAGAIN && errno != EINTR) fail_call(op, program, "writing its input", errno);
        if (input.empty()) fd.reset();  // end of input
      } else {
        const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
        if (got > 0) (&fd == &out ? out_text : err_text).append(buffer.data(), static_cast<size_t>(got));
        else if (got == 0) fd.reset();
        else if (errno != EAGAIN && errno != EINTR) fail_call(op, program, "reading its output", errno);
      }
    }
  }
}

int wait_for(const char* op, const std::string& program, pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) fail_call(op, program, "waitpid", errno);
  return status;
}

// ": <the start of what the program wrote to stderr>", on one line; "" when it wrote nothing.
std::string stderr_note(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  const size_t end = text.find_last_not_of(" \t\r");
  return end == std::string::npos ? std::string() : ": " + excerpt(text.substr(0, end + 1), 400);
}

}  // namespace

std::string run_program(const char* op, const std::vector<std::string>& argv, std::string_view input,
                        std::string_view install_hint) {
  const std::string& program = argv.at(0);
  Channel in = input_channel(op, program), out = output_channel(op, program), err = output_channel(op, program);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int started = [&] {
    const StdioActions actions(in, out, err);
    return ::posix_spawnp(&pid, program.c_str(), actions.get(), nullptr, args.data(), environ);
  }();
  if (started == ENOENT) throw Error(op, fmt::format("{} is not on PATH: {}", program, install_hint));
  if (started != 0) throw Error(op, fmt::format("cannot start {}: {}", program, std::strerror(started)));
  in.theirs.reset(), out.theirs.reset(), err.theirs.reset();  // so that each stream ends when the program does

  std::string out_text, err_text;
  try {
    exchange(op, program, in.ours, input, out.ours, out_text, err.ours, err_text);
  } catch (...) {
    ::kill(pid, SIGKILL);
    wait_for(op, program, pid);
    throw;
  }
  const int status = wait_for(op, program, pid);
  if (WIFSIGNALED(status))
    throw Error(op, fmt::format("{} was killed by signal {} ({}){}", program, WTERMSIG(status),
                                ::strsignal(WTERMSIG(status)), stderr_note(err_text)));
  if (WEXITSTATUS(status) != 0)
    throw Error(op, fmt::format("{} failed (exit status {}){}", program, WEXITSTATUS(status), stderr_note(err_text)));
  return out_text;
}

}  // namespace tg
