#include "core/io/line_reader.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/untrusted_text.h"

namespace tg {

namespace {

constexpr size_t kChunk = size_t{1} << 16;  // bytes read at a time

}  // namespace

LineReader::LineReader(const InputFile& file, const char* op, size_t max_line_bytes)
    : file_(&file), op_(op), source_(file.path().string()), max_line_bytes_(max_line_bytes) {
  fill();
  if (rest_.starts_with(kUtf8ByteOrderMark)) rest_.remove_prefix(kUtf8ByteOrderMark.size());
}

LineReader::LineReader(std::string_view text, const char* op, std::string_view source, size_t max_line_bytes)
    : op_(op), source_(source), max_line_bytes_(max_line_bytes), rest_(text), at_end_(true) {
  if (rest_.starts_with(kUtf8ByteOrderMark)) rest_.remove_prefix(kUtf8ByteOrderMark.size());
}

bool LineReader::fill() {
  if (at_end_) return false;
  // Keep what is left, then append a chunk: the buffer holds at most one line and one chunk.
  buffer_.erase(0, buffer_.size() - rest_.size());
  const size_t kept = buffer_.size();
  buffer_.resize(kept + kChunk);
  const size_t n = file_->read_up_to(buffer_.data() + kept, kChunk, offset_);
  buffer_.resize(kept + n);
  offset_ += n;
  at_end_ = n == 0;
  rest_ = buffer_;
  return n > 0;
}

bool LineReader::next(std::string_view& line) {
  // Refused as soon as the bytes read of the line pass the limit, before the rest is read.
  const auto check_length = [&](size_t bytes) {
    if (bytes > max_line_bytes_)
      fail_at(line_number_ + 1, fmt::format("the line is longer than the limit of {} bytes", max_line_bytes_));
  };
  size_t searched = 0;  // bytes of rest_ known to hold no '\n'
  size_t end;
  while ((end = rest_.find('\n', searched)) == std::string_view::npos) {
    check_length(searched = rest_.size());
    if (!fill()) break;
  }
  if (end == std::string_view::npos && rest_.empty()) return false;
  if (end == std::string_view::npos) end = rest_.size();
  check_length(end);
  ++line_number_;
  line = rest_.substr(0, end);
  rest_.remove_prefix(std::min(end + 1, rest_.size()));
  if (line.ends_with('\r')) line.remove_suffix(1);
  return true;
}

std::string LineReader::where() const { return fmt::format("{}:{}", source_, line_number_); }

void LineReader::fail_at(int64_t line, const std::string& what) const {
  throw Error(op_, fmt::format("{}:{}: {}", source_, line, what));
}

}  // namespace tg
