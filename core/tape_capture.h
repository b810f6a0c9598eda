#pragma once
// TapeCapture: keeps the tensors of every entry recorded on this thread while it lives, so that
// their values can be shown after the forward (tapegrad explore). An entry itself keeps only
// records (id, shape, name) of its inputs and outputs; the capture keeps the tensors.
//
//   TapeCapture capture;                 // from here on, Recorder hands each entry to it
//   Tensor loss = model.forward(x);
//   for (const CapturedEntry& c : capture.entries()) ... c.entry->op, c.inputs[i], c.outputs[j]
//
// Captures do not nest (a second one is an error). Without a capture the Recorder pays one
// thread-local pointer test per op.
#include <memory>
#include <vector>

#include "core/tape.h"

namespace tg {

struct CapturedEntry {
  std::shared_ptr<Entry> entry;  // its saved tensors are entry->saved
  TensorList inputs;             // as passed to the op (an undefined Tensor for an omitted input)
  TensorList outputs;
};

class TapeCapture {
 public:
  TapeCapture();
  ~TapeCapture();
  TapeCapture(const TapeCapture&) = delete;
  TapeCapture& operator=(const TapeCapture&) = delete;

  // The entries committed to the tape since the capture began, in execution order.
  std::vector<CapturedEntry> entries() const;

  // Called by Recorder for every entry it makes (an entry whose op gives up before committing
  // is dropped by entries()).
  static TapeCapture* active();
  void add(const std::shared_ptr<Entry>& entry, const TensorList& inputs, const TensorList& outputs);

 private:
  std::vector<CapturedEntry> captured_;
};

}  // namespace tg
