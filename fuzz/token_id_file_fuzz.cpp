// Fuzz target: a token id file (.bin, data/token_id_file.h) on any bytes, read whole and
// memory-mapped (data/token_windows.h) with a small vocabulary. Where the whole file reads,
// every window must read too and hold the same ids.
// fuzz-links: tapegrad::data
#include <cstdlib>
#include <optional>
#include <vector>

#include "data/token_id_file.h"
#include "data/token_windows.h"
#include "fuzz_input.h"

namespace {

constexpr int64_t kVocab = 40;
constexpr int64_t kOffset = 4;
constexpr int64_t kBlock = 3;

// Every window must read (its ids are all in the vocabulary), its input and target the file's
// ids from its start, shifted by kOffset.
void require_windows_match(const tg::data::TokenWindowDataset& windows, const std::vector<tg::data::TokenId>& ids) {
  for (int64_t i = 0; i < windows.size(); ++i) {
    tg::data::Example ex;
    try {
      ex = windows.get(i);
    } catch (const tg::Error&) {
      std::abort();
    }
    const int64_t start = windows.start(i);
    for (int64_t t = 0; t < kBlock; ++t)
      if (ex.input[static_cast<size_t>(t)] != kOffset + ids[static_cast<size_t>(start + t)] ||
          ex.target[static_cast<size_t>(t)] != kOffset + ids[static_cast<size_t>(start + t + 1)])
        std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = tg::fuzz::input_as_file(data, size, ".bin");
  std::string hash(64, '0');
  tg::fuzz::expect_only_tg_errors([&] { hash = tg::data::read_token_id_header(path).tokenizer_sha256; });
  std::optional<std::vector<tg::data::TokenId>> all;
  tg::fuzz::expect_only_tg_errors([&] { all = tg::data::read_token_id_file(path, kVocab, hash); });
  tg::fuzz::expect_only_tg_errors([&] {
    const tg::data::TokenWindowSets sets =
        tg::data::token_id_file_windows(path, hash, kVocab, kOffset, kBlock, 0.25, 8, 4, 1);
    for (const auto* windows : {sets.train.get(), sets.val.get()}) {
      if (all) {
        require_windows_match(*windows, *all);
      } else {
        for (int64_t i = 0; i < windows->size(); ++i) windows->get(i);
      }
    }
  });
  return 0;
}
