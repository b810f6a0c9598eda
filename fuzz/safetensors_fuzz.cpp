// Fuzz target: the safetensors reader (core/io/safetensors.h) on any bytes. A file that loads
// is saved again and must load back to the same tensors and metadata.
// fuzz-links: tapegrad::core
#include <unistd.h>

#include <cstring>

#include "core/io/safetensors.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = tg::fuzz::input_as_file(data, size, ".safetensors");
  tg::fuzz::expect_only_tg_errors([&] {
    tg::SafetensorsFile file = tg::load_safetensors(path);
    const std::string copy = path + ".copy";
    tg::save_safetensors(copy, file.tensors, file.metadata);
    tg::SafetensorsFile again = tg::load_safetensors(copy);
    ::unlink(copy.c_str());
    if (again.metadata != file.metadata || again.tensors.size() != file.tensors.size()) std::abort();
    for (size_t i = 0; i < file.tensors.size(); ++i) {
      const tg::Tensor &a = file.tensors[i].second, &b = again.tensors[i].second;
      if (a.shape() != b.shape() || a.dtype() != b.dtype() ||
          std::memcmp(a.raw_data(), b.raw_data(), static_cast<size_t>(a.numel()) * tg::element_size(a.dtype())) != 0)
        std::abort();
    }
  });
  return 0;
}
