// Windows over memory-mapped token id files (data/mapped_token_ids.h, data/token_windows.h):
// worked windows, determinism, every fault of an untrusted file named, and resident memory
// that does not grow with the file.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "bench/peak_rss.h"
#include "core/error.h"
#include "data/temp_file.h"
#include "data/token_windows.h"

using namespace tg::data;
using tg::test::TempFile;

namespace {

const std::string kTokenizerHash(64, 'a');

std::vector<TokenId> iota_ids(int n) {
  std::vector<TokenId> ids(static_cast<size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

// A .bin of `count` zero ids (2 bytes each) without writing them: a real header, then the file
// extended to its size, sparse, so that a 2 GB corpus costs neither time nor disk.
void write_sparse_zero_ids(const std::string& path, uint64_t count) {
  write_token_id_file(path, std::vector<TokenId>{}, 300, kTokenizerHash);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(16);
  for (int i = 0; i < 8; ++i) f.put(static_cast<char>((count >> (8 * i)) & 0xff));
  f.close();
  std::filesystem::resize_file(path, kTokenIdHeaderBytes + 2 * count);
}

}  // namespace

TEST_CASE("token windows: input and target are the file's ids shifted by the model's reserved ids") {
  TempFile file("windows.bin");
  write_token_id_file(file.path(), iota_ids(20), 300, kTokenizerHash);
  // 20 ids, val_fraction 0.25: train ids [0, 15), val ids [15, 20); T = 3, id_offset 4
  const TokenWindowSets sets = token_id_file_windows(file.path(), kTokenizerHash, 300, 4, 3, 0.25, 50, 5, 7);
  REQUIRE(sets.train->size() == 50);
  REQUIRE(sets.val->size() == 2);  // the val part has 2 starts (15 and 16): fewer than the 5 asked
  CHECK(sets.val->get(0) == Example{{19, 20, 21}, {20, 21, 22}});
  CHECK(sets.val->get(1) == Example{{20, 21, 22}, {21, 22, 23}});
  std::set<int64_t> starts;
  for (int64_t i = 0; i < sets.train->size(); ++i) {
    const Example ex = sets.train->get(i);
    const int64_t t = ex.input[0] - 4;  // file id = position
    CHECK(t >= 0);
    CHECK(t + 3 < 15);  // the target's last id is still in the training part
    CHECK(ex == Example{{t + 4, t + 5, t + 6}, {t + 5, t + 6, t + 7}});
    starts.insert(t);
  }
  CHECK(starts.size() >= 8);  // random starts, not one window repeated (12 possible)

  // Evenly spaced validation windows: 1000 ids, val [500, 1000), T = 4: 496 starts, 4 windows
  TempFile big("windows_even.bin");
  write_token_id_file(big.path(), iota_ids(1000), 1000, kTokenizerHash);
  const TokenWindowSets even = token_id_file_windows(big.path(), kTokenizerHash, 1000, 0, 4, 0.5, 1, 4, 7);
  REQUIRE(even.val->size() == 4);
  std::vector<int64_t> firsts;
  for (int64_t i = 0; i < 4; ++i) firsts.push_back(even.val->get(i).input[0]);
  CHECK(firsts == std::vector<int64_t>{500, 624, 748, 872});
  CHECK(token_id_file_windows(big.path(), kTokenizerHash, 1000, 0, 4, 0, 1, 4, 7).val->size() == 0);
}

TEST_CASE("token windows: the same seed gives the same training windows, another seed others") {
  TempFile file("windows_seed.bin");
  write_token_id_file(file.path(), iota_ids(5000), 5000, kTokenizerHash);
  auto firsts = [&](uint64_t seed) {
    const TokenWindowSets sets = token_id_file_windows(file.path(), kTokenizerHash, 5000, 0, 8, 0.1, 64, 8, seed);
    std::vector<int64_t> out;
    for (int64_t i = 0; i < sets.train->size(); ++i) out.push_back(sets.train->get(i).input[0]);
    return out;
  };
  CHECK(firsts(3) == firsts(3));
  CHECK(firsts(3) != firsts(4));
}

TEST_CASE("token windows: a truncated or foreign file, another tokenizer's, an id out of range, too few ids") {
  TempFile file("windows_faults.bin");
  write_token_id_file(file.path(), std::vector<TokenId>{1, 2, 3, 4, 299}, 300, kTokenizerHash);
  auto error_opening = [&](const std::string& bytes, int64_t vocab = 300, const std::string& hash = kTokenizerHash) {
    std::ofstream(file.path(), std::ios::binary | std::ios::trunc) << bytes;
    try {
      MappedTokenIds ids(file.path(), hash, vocab);
    } catch (const tg::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string good;
  {
    std::ifstream in(file.path(), std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  CHECK(error_opening(good) == "no error");
  CHECK(error_opening(good.substr(0, good.size() - 1))
            .find("windows_faults.bin: the header says 5 ids of 2 bytes, but 9 bytes follow it") != std::string::npos);
  CHECK(error_opening(good.substr(0, 40)).find("40 bytes is shorter than a token id file's 88-byte header") !=
        std::string::npos);
  CHECK(error_opening("NOTTOKID" + good.substr(8)).find("not a token id file") != std::string::npos);
  CHECK(error_opening(good, 300, std::string(64, 'b')).find("made by the tokenizer with SHA-256 aaaa") !=
        std::string::npos);

  // An id out of the vocabulary opens (the ids are not scanned) and fails when its window is read.
  error_opening(good);
  const MappedTokenIds ids(file.path(), kTokenizerHash, 100);
  CHECK(ids.id(3) == 4);
  CHECK_THROWS_WITH_AS(ids.id(4),
                       doctest::Contains("windows_faults.bin: id 299 (at position 4) is outside the tokenizer's "
                                         "vocabulary of 100 tokens"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(ids.id(5), doctest::Contains("ids [5, 6) are out of range for its 5 ids"), tg::Error);
  const TokenWindowSets sets = token_id_file_windows(file.path(), kTokenizerHash, 100, 0, 2, 0, 100, 0, 1);
  CHECK_THROWS_WITH_AS(
      [&] {
        for (int64_t i = 0; i < sets.train->size(); ++i) sets.train->get(i);
      }(),
      doctest::Contains("id 299 (at position 4)"), tg::Error);
  CHECK_THROWS_WITH_AS(token_id_file_windows(file.path(), kTokenizerHash, 300, 0, 2, 0.4, 1, 1, 1),
                       doctest::Contains("5 ids split 3 / 2 are too few for block_size 2"), tg::Error);
}

TEST_CASE("token windows: resident memory does not grow with the file (2 GB against 2 MB)") {
  // 3072 training windows of 64 and 512 validation windows, from a sparse file of 1M ids (2 MB)
  // and one of 1G ids (2 GB). Each window touches a page or two of the mapping; kept, the 2 GB
  // file's would add about 14 MiB of RSS.
  auto rss_growth_mib = [](uint64_t ids) {
    const auto path = std::filesystem::temp_directory_path() / ("tg_" + std::to_string(getpid()) + "_rss.bin");
    write_sparse_zero_ids(path.string(), ids);
    const double before = tg::bench::rss_mib();
    double after = 0;
    {
      const TokenWindowSets sets = token_id_file_windows(path, kTokenizerHash, 300, 4, 64, 0.1, 3072, 512, 1);
      for (const auto* part : {&sets.train, &sets.val})
        for (int64_t i = 0; i < (*part)->size(); ++i) REQUIRE((*part)->get(i).input[0] == 4);
      after = tg::bench::rss_mib();  // while the file is still mapped
    }
    std::filesystem::remove(path);
    return after - before;
  };
  const double small = rss_growth_mib(uint64_t{1} << 20);
  const double large = rss_growth_mib(uint64_t{1} << 30);
  MESSAGE("RSS growth: ", small, " MiB for 2 MB of ids, ", large, " MiB for 2 GB");
  CHECK(large <= small + 2);
}
