// Fuzz target: the labelled-file reader (data/labelled_file.h) on a .tsv file, and the task
// built from what it reads.
// fuzz-links: tapegrad::data
#include "data/labelled_file.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = tg::fuzz::input_as_file(data, size, ".tsv");
  tg::fuzz::expect_only_tg_errors([&] { tg::data::load_labelled_task(path, 0.25, 1); });
  return 0;
}
