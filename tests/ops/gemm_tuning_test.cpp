// GEMM tuning (ops/matmul/gemm_tuning.h): every tile of a family, with every a block, gives the
// default tile's bits on every layout, edge, cache block, depth split, batch, bias and
// accumulation, and the AVX2 family gives the AVX-512 one's on any thread count; a shape met is
// timed once, kept in the cache and found there again; a cache that is not one is left aside with
// a warning naming the file and the field, and rewritten.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "core/io/run_program.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/matmul/gemm_kernels.h"
#include "ops/matmul/gemm_tuning.h"
#include "ops/gemm_test_util.h"
#include "train/train_test_util.h"

using namespace tg;

namespace {

struct Product {
  int64_t batch, M, N, K;
  bool with_bias = false, accumulate = false;
};

// c of `p` in all four layouts (one after the other in the result), with the tile forced.
template <class T>
std::vector<T> run_layouts(const Product& p, GemmTile tile) {
  gemm_force_tile(tile, std::is_same_v<T, double>);
  std::vector<T> all;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      std::vector<T> a(p.batch * p.M * p.K), b(p.batch * p.K * p.N), bias(p.N), c(p.batch * p.M * p.N);
      for (size_t i = 0; i < a.size(); ++i) a[i] = T(std::sin(0.37 * double(i)));
      for (size_t i = 0; i < b.size(); ++i) b[i] = T(std::cos(0.71 * double(i)));
      for (size_t i = 0; i < bias.size(); ++i) bias[i] = T(0.5) - T(i % 3);
      for (size_t i = 0; i < c.size(); ++i) c[i] = T(std::sin(1.3 * double(i)));  // kept where accumulating
      std::vector<int64_t> a_off, b_off;
      for (int64_t q = 0; q < p.batch; ++q) a_off.push_back(q * p.M * p.K), b_off.push_back(q * p.K * p.N);
      gemm_cpu<T>(c.data(), {a.data(), a_off.data(), ta ? p.M : p.K, ta}, {b.data(), b_off.data(), tb ? p.K : p.N, tb},
                  p.batch, p.M, p.N, p.K, p.with_bias ? bias.data() : nullptr, {}, p.accumulate);
      all.insert(all.end(), c.begin(), c.end());
    }
  gemm_force_tile({}, std::is_same_v<T, double>);
  return all;
}

template <class T>
bool same_bits(const std::vector<T>& got, const std::vector<T>& expected) {
  return got.size() == expected.size() && std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)) == 0;
}

std::string product_name(const Product& p) {
  return "batch " + std::to_string(p.batch) + " M " + std::to_string(p.M) + " N " + std::to_string(p.N) + " K " +
         std::to_string(p.K) + (p.with_bias ? " bias" : "") + (p.accumulate ? " accumulate" : "");
}

template <class T>
void require_same_bits_every_tile(const Product& p) {
  INFO(product_name(p));
  std::vector<GemmTile> tiles;
  for (GemmTile tile : gemm_cpu_tiles(std::is_same_v<T, double>))
    for (int a_kib : {kGemmDefaultABlockKiB, 16, 96, 384}) tiles.push_back({tile.mr, tile.nr, a_kib});
  const std::vector<T> expected = run_layouts<T>(p, tiles[0]);
  for (const GemmTile& tile : tiles) {
    CAPTURE(tile.name());
    CHECK(same_bits(run_layouts<T>(p, tile), expected));
  }
}

// Edges of every tile; several depth and row blocks (K 520, M 150); depth splits (small M and N,
// long K, accumulating and not); a batch run whole by the threads; a bias; K = 0.
const std::vector<Product> kProducts = {{1, 37, 45, 29},
                                        {1, 150, 17, 520, true},
                                        {1, 8, 8, 2048},
                                        {1, 8, 40, 4000, true, true},
                                        {1, 96, 200, 300, false, true},
                                        {5, 37, 29, 71, true},
                                        {2, 5, 7, 0, true, true}};

const bool cpu_runs_avx2_and_avx512 = cpu_has_avx2_fma() && cpu_has_avx512f();

// Whether the AVX2 family's c of `p` (all four layouts, default tiles) is the AVX-512 family's.
template <class T>
bool same_bits_avx2_and_avx512(const Product& p) {
  gemm_cpu_force_kernel("avx512");
  const std::vector<T> expected = run_layouts<T>(p, {});
  gemm_cpu_force_kernel("avx2");
  return same_bits(run_layouts<T>(p, {}), expected);
}

// Tuning off again at the end of a test, even when a check throws.
struct TuningOff {
  ~TuningOff() { gemm_tuning_stop(); }
};

// One product large enough to be timed (2^21 multiply-adds or more): its shape as gemm_cpu asks for
// its tile.
GemmShape run_one_product(int64_t M = 160, int64_t N = 128, int64_t K = 128) {
  std::vector<float> a(M * K, 0.5f), b(K * N, 0.25f), c(M * N);
  const int64_t zero = 0;
  gemm_cpu<float>(c.data(), {a.data(), &zero, K, false}, {b.data(), &zero, N, false}, 1, M, N, K);
  return {false, 1, M, N, K, false, false, omp_get_max_threads()};
}

std::string cache_with_tile(const std::string& tile_field) {
  return R"({"format": "tapegrad gemm tuning", "version": 1, "machines": [{"cpu": ")" + gemm_cpu_model() +
         R"(", "family": ")" + gemm_cpu_kernel_name() +
         R"(", "tiles": [{"dtype": "float32", "batch": 1, "m": 160, "n": 128, "k": 128, "a_trans": false, )"
         R"("b_trans": false, "a_block_kib": 96, "threads": )" +
         std::to_string(omp_get_max_threads()) + ", " + tile_field + "}]}]}";
}

}  // namespace

TEST_CASE("gemm tuning: every tile of every family, with every a block, gives the default tile's bits") {
  test::for_kernels_and_threads({1, 2, 3}, [] {
    for (const Product& p : kProducts) {
      require_same_bits_every_tile<float>(p);
      require_same_bits_every_tile<double>(p);
    }
  });
}

TEST_CASE("gemm: the AVX2 and AVX-512 families give the same bits on any thread count" *
          doctest::skip(!cpu_runs_avx2_and_avx512)) {
  const test::RestoreKernelAndThreads restore;
  // and a product that the families' own default tiles (6x16, 12x32) split differently on 2 threads
  std::vector<Product> products = kProducts;
  products.push_back({1, 100, 69, 64, true});
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    for (const Product& p : products) {
      CAPTURE(threads);
      INFO(product_name(p));
      CHECK(same_bits_avx2_and_avx512<float>(p));
      CHECK(same_bits_avx2_and_avx512<double>(p));
    }
  }
}

TEST_CASE("gemm tuning: a tile the family has not is refused") {
  CHECK_THROWS_WITH_AS(gemm_force_tile({5, 7}, false), doctest::Contains("no float32 tile 5x7"), Error);
  const GemmTile first = gemm_cpu_tiles(true).front();
  CHECK_THROWS_WITH_AS(gemm_force_tile({first.mr, first.nr, 8}, true),
                       doctest::Contains("(a block 16 to 4096 KiB)"), Error);
  const std::vector<GemmTile> tiles = gemm_cpu_tiles(false);
  CHECK(tiles.front() != GemmTile{});
  CHECK(gemm_tile_for({false, 1, 64, 64, 64, false, false, 1}) == GemmTile{});  // off: the default
}

TEST_CASE("gemm tuning: a shape is timed once, kept in the cache and found there again") {
  test::TempDir dir("gemm_tuning_cache");
  const std::filesystem::path cache = dir.path() / "sub" / "gemm-tuning.json";
  TuningOff off;
  // Another machine's section, which the save keeps.
  const GemmTuningMachine other{"Other CPU", "avx2", {{{true, 1, 3, 4, 5, true, false, 2}, {4, 12}}}};
  std::filesystem::create_directories(cache.parent_path());
  test::write_file(cache, gemm_tuning_to_json({other}));

  CHECK(gemm_tuning_start(cache).empty());
  const GemmShape shape = run_one_product();
  CHECK(gemm_tile_for(shape) == GemmTile{});  // not yet timed: the default
  const GemmTuningReport report = gemm_tune_pending();
  CHECK(report.warning.empty());
  REQUIRE(report.shapes == 1);
  REQUIRE(report.chosen.size() == 1);
  CHECK(report.chosen[0].shape == shape);
  const GemmTile chosen = report.chosen[0].tile;
  const std::vector<GemmTile> tiles = gemm_cpu_tiles(false);
  CHECK(std::any_of(tiles.begin(), tiles.end(), [&](GemmTile t) { return t.mr == chosen.mr && t.nr == chosen.nr; }));
  CHECK((chosen.a_kib == kGemmDefaultABlockKiB || chosen.a_kib == 96 || chosen.a_kib == 384));
  CHECK(gemm_tile_for(shape) == chosen);
  CHECK(gemm_tune_pending().shapes == 0);  // nothing new
  run_one_product(128, 128, 127);           // under 2^21 multiply-adds: not worth timing
  CHECK(gemm_tune_pending().shapes == 0);

  const std::vector<GemmTuningMachine> saved = gemm_tuning_from_json(test::read_file(cache), "cache");
  REQUIRE(saved.size() == 2);
  CHECK(saved[0] == other);
  CHECK(saved[1].cpu == gemm_cpu_model());
  CHECK(saved[1].family == gemm_cpu_kernel_name());
  REQUIRE(saved[1].tiles.size() == 1);
  CHECK(saved[1].tiles[0] == GemmTuningEntry{shape, chosen});

  gemm_tuning_stop();  // a new process: the cache gives the tile without timing
  CHECK(gemm_tuning_start(cache).empty());
  CHECK(gemm_tile_for(shape) == chosen);
  run_one_product();
  CHECK(gemm_tune_pending().shapes == 0);
}

TEST_CASE("gemm tuning: a cache that is not one is left aside with the field named, and rewritten") {
  test::TempDir dir("gemm_tuning_bad");
  const std::filesystem::path cache = dir.path() / "gemm-tuning.json";
  TuningOff off;
  const std::string entry = R"("tile": "8x32")";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{not json", "the file is not valid JSON"},
      {R"({"format": [[[[[[1]]]]]], "version": 1, "machines": []})", "nests arrays and objects more than 5 deep"},
      {R"({"format": "tapegrad weights", "version": 1, "machines": []})",
       "field \"format\" must be \"tapegrad gemm tuning\""},
      {R"({"format": "tapegrad gemm tuning", "version": 2, "machines": []})", "field \"version\" must be 1"},
      {R"({"format": "tapegrad gemm tuning", "version": 1, "machines": {}})", "field \"machines\" must be an array"},
      {R"({"format": "tapegrad gemm tuning", "version": 1, "machines": [{"cpu": 3, "family": "", "tiles": []}]})",
       "machines[0]: field \"cpu\" must be a string"},
      {R"({"format": "tapegrad gemm tuning", "version": 1, "machines": [{"cpu": ""}]})",
       "machines[0]: has no fields \"family\", \"tiles\""},
      {cache_with_tile(R"("tile": "8y32")"), "machines[0].tiles[0]: field \"tile\" must be \"<rows>x<columns>\""},
      {cache_with_tile(R"("tile": "0x32")"), "machines[0].tiles[0]: field \"tile\" must be"},
      {cache_with_tile(R"("tile": "8x32", "m": -4)"), "tiles[0]: field \"m\" must be an integer in [1, 2147483647]"},
      {cache_with_tile(R"("tile": "8x32", "k": 2147483648)"), "tiles[0]: field \"k\" must be an integer in [1,"},
      {cache_with_tile(R"("tile": "8x32", "threads": 0)"),
       "tiles[0]: field \"threads\" must be an integer in [1, 4096]"},
      {cache_with_tile(R"("tile": "8x32", "a_trans": 1)"), "tiles[0]: field \"a_trans\" must be true or false"},
      {cache_with_tile(R"("tile": "8x32", "dtype": "float16")"), "tiles[0]: field \"dtype\" must be \"float32\" or"},
      {cache_with_tile(R"("tile": "8x32", "a_block_kib": 8)"),
       "tiles[0]: field \"a_block_kib\" must be an integer in [16,"},
      {std::string(1 << 21, ' '), "over 1048576 bytes"},
  };
  for (const auto& bad_cache : cases) {
    const std::string& content = bad_cache.first;
    const std::string& message = bad_cache.second;
    INFO(content.substr(0, 200));
    test::write_file(cache, content);
    const std::string warning = gemm_tuning_start(cache);
    CHECK(warning.find(cache.string()) != std::string::npos);
    CHECK(warning.find(message) != std::string::npos);
    CHECK(warning.find("it is timed again and rewritten") != std::string::npos);
    const GemmShape shape = run_one_product();
    CHECK(gemm_tile_for(shape) == GemmTile{});
    REQUIRE(gemm_tune_pending().shapes == 1);
    CHECK(gemm_tuning_from_json(test::read_file(cache), "cache").back().tiles.size() == 1);
    gemm_tuning_stop();
  }
  // A directory where the file should be: the same, without the rewrite.
  std::filesystem::remove(cache);
  std::filesystem::create_directories(cache);
  CHECK(gemm_tuning_start(cache).find("is a directory") != std::string::npos);
  run_one_product();
  CHECK(gemm_tune_pending().warning.find("the tiles are not kept") != std::string::npos);
}

TEST_CASE("gemm tuning: a tile of the cache this family lacks is not used") {
  test::TempDir dir("gemm_tuning_unknown_tile");
  const std::filesystem::path cache = dir.path() / "gemm-tuning.json";
  TuningOff off;
  test::write_file(cache, cache_with_tile(R"("tile": "5x7")"));
  CHECK(gemm_tuning_start(cache).empty());
  const GemmShape shape = run_one_product();
  CHECK(gemm_tile_for(shape) == GemmTile{});
  CHECK(gemm_tune_pending().shapes == 1);
}

TEST_CASE("gemm tuning: the cache's place from the environment") {
  {
    gemm_tuning_stop();
    const test::ScopedEnv off("TAPEGRAD_GEMM_TUNING", "off");
    CHECK(!gemm_tuning_cache_from_environment());
    CHECK(gemm_tuning_start_from_environment().empty());
    CHECK(gemm_tile_for(run_one_product()) == GemmTile{});  // not started: nothing remembered
    CHECK(gemm_tune_pending().shapes == 0);
  }
  {
    const test::ScopedEnv file("TAPEGRAD_GEMM_TUNING", "/tmp/my tiles.json");
    CHECK(gemm_tuning_cache_from_environment() == std::filesystem::path("/tmp/my tiles.json"));
  }
  const test::ScopedEnv unset("TAPEGRAD_GEMM_TUNING", std::nullopt);
  {
    const test::ScopedEnv xdg("XDG_CACHE_HOME", "/x/cache"), home("HOME", "/home/h");
    CHECK(gemm_tuning_cache_from_environment() == std::filesystem::path("/x/cache/tapegrad/gemm-tuning.json"));
    const test::ScopedEnv relative("XDG_CACHE_HOME", "relative");  // the XDG spec: relative paths are ignored
    CHECK(gemm_tuning_cache_from_environment() == std::filesystem::path("/home/h/.cache/tapegrad/gemm-tuning.json"));
  }
  const test::ScopedEnv no_xdg("XDG_CACHE_HOME", std::nullopt), no_home("HOME", std::nullopt);
  CHECK(gemm_tuning_cache_from_environment() == std::filesystem::path());  // tuned, not kept
}

#ifdef TAPEGRAD_PROGRAM
TEST_CASE("gemm tuning: the tapegrad program tunes and keeps its tiles where TAPEGRAD_GEMM_TUNING says") {
  test::TempDir dir("gemm_tuning_program");
  const std::filesystem::path cache = dir.path() / "tiles.json";
  const test::ScopedEnv where("TAPEGRAD_GEMM_TUNING", cache.string());
  run_program("gemm tuning test", {TAPEGRAD_PROGRAM, "train", "--steps", "3", "--out", (dir.path() / "run").string()},
              "", "");  // no shell: the temporary folder's name is never read as syntax
  const std::vector<GemmTuningMachine> saved = gemm_tuning_from_json(test::read_file(cache), "tiles.json");
  REQUIRE(saved.size() == 1);
  CHECK(saved[0].cpu == gemm_cpu_model());
  CHECK(!saved[0].tiles.empty());
}
#endif
