#pragma once
// Generated text on its way to the user: byte for byte into a file or a pipe (the user asked for
// the text), as visible_text shows it on a terminal (core/io/untrusted_text.h), where a model
// trained on hostile data could otherwise write escape sequences that retitle, clear or
// reprogram the terminal.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "core/io/untrusted_text.h"

namespace tg::cli {

inline bool is_terminal(std::FILE* stream) {
  const int fd = ::fileno(stream);
  return fd >= 0 && ::isatty(fd) == 1;
}

inline std::string text_for(std::FILE* stream, const std::string& text) {
  return is_terminal(stream) ? visible_text(text, LineBreaks::keep) : text;
}

}  // namespace tg::cli
