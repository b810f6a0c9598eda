#include "core/tape_capture.h"

#include "core/error.h"

namespace tg {

namespace {
thread_local TapeCapture* active_capture = nullptr;
}  // namespace

TapeCapture::TapeCapture() {
  if (active_capture != nullptr) throw Error("TapeCapture", "a capture is already active on this thread");
  active_capture = this;
}

TapeCapture::~TapeCapture() { active_capture = nullptr; }

TapeCapture* TapeCapture::active() { return active_capture; }

void TapeCapture::add(const std::shared_ptr<Entry>& entry, const TensorList& inputs, const TensorList& outputs) {
  captured_.push_back({entry, inputs, outputs});
}

std::vector<CapturedEntry> TapeCapture::entries() const {
  std::vector<CapturedEntry> committed;
  for (const CapturedEntry& c : captured_)
    if (c.entry->reference) committed.push_back(c);
  return committed;
}

}  // namespace tg
