// Fuzz target: the checkpoint loader (train/checkpoint.h), on top of the safetensors reader.
// fuzz-links: tapegrad::train
#include "fuzz_input.h"
#include "train/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = tg::fuzz::input_as_file(data, size, ".safetensors");
  tg::fuzz::expect_only_tg_errors([&] { tg::train::load_checkpoint(path); });
  return 0;
}
