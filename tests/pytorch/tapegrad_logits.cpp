// tapegrad_logits RUN OUT COUNT: a run's logits on the first COUNT examples of its validation set,
// for pytorch_roundtrip.py to compare with the exported PyTorch model's. Writes OUT (safetensors):
//   ids           (B,T) int64    the examples, padded with <pad>
//   padding_mask  (B,T) bool     true = pad
//   logits        (B,T,C) float32
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/grad_mode.h"
#include "core/io/safetensors.h"
#include "data/dataloader.h"
#include "train/checkpoint.h"
#include "train/task_data.h"

int main(int argc, char** argv) {
  using namespace tg;
  if (argc != 4) {
    std::fprintf(stderr, "usage: tapegrad_logits RUN OUT.safetensors COUNT\n");
    return 2;
  }
  try {
    const train::Checkpoint c = train::load_checkpoint(train::checkpoint_file(argv[1]));
    const train::TaskData d = train::make_task_data(c.config);
    std::vector<data::Example> examples;
    const int64_t count = std::min<int64_t>(std::stoll(argv[3]), d.val->size());
    for (int64_t i = 0; i < count; ++i) examples.push_back(d.val->get(i));
    const data::Batch b = data::collate(examples);
    NoGradGuard no_grad;
    const Tensor logits = train::load_model(c)->forward(b.inputs, b.padding_mask);
    save_safetensors(argv[2], {{"ids", b.inputs}, {"padding_mask", b.padding_mask}, {"logits", logits}});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tapegrad_logits: %s\n", e.what());
    return 1;
  }
}
