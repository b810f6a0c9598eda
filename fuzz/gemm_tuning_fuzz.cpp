// Fuzz target: a GEMM tuning cache (ops/matmul/gemm_tuning.h) on any bytes. A cache that loads
// must write itself back to text that loads to the same machines and tiles; as a file, it must
// start tuning without throwing (a cache that is not one is a warning, never an error).
// fuzz-links: tapegrad::ops
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "ops/matmul/gemm_tuning.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tg::fuzz::expect_only_tg_errors([&] {
    const std::vector<tg::GemmTuningMachine> machines = tg::gemm_tuning_from_json(bytes, "gemm-tuning.json");
    if (tg::gemm_tuning_from_json(tg::gemm_tuning_to_json(machines), "copy") != machines) std::abort();
  });
  tg::gemm_tuning_start(tg::fuzz::input_as_file(data, size, ".json"));
  tg::gemm_tuning_stop();
  return 0;
}
