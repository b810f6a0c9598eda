#pragma once
// GEMM tuning: which of its family's micro-kernels (gemm_kernels.h: AVX-512 f32 12x32, 8x32,
// 8x48, 6x64, ...) gemm_cpu runs for each product shape, and how many rows of op(a) it packs at a
// time (the a block's size, kept in L2: 96, 192 or 384 KiB), chosen by timing them on the machine.
// The fastest choice differs with the core design and the shape by up to about 10%.
//
// It never changes a result: every kernel of a family gives each element of c the same chain of
// multiply-adds, the a block cuts only the rows, and how a product is cut into depth parts (whose
// partial sums are added) is chosen for one fixed tile whatever tile and family run, so a run's
// bits depend only on its config and thread count (tests/ops/gemm_tuning_test.cpp).
//
// Off unless a program turns it on (the tapegrad program and the training-step bench do, from
// TAPEGRAD_GEMM_TUNING):
//
//   gemm_tuning_start(cache)   loads the tiles chosen before on this CPU (model and family)
//   ... gemm_cpu runs; each shape without a tile runs the default and is remembered ...
//   gemm_tune_pending()        times every tile on each remembered shape (in the fit loop: after
//                              an update), keeps the fastest, and rewrites the cache
//
// The cache is a JSON file (untrusted: gemm_tuning_from_json checks every field), one section per
// CPU model and family, written whole with write_file_atomically (core/io/output_file.h).
#include <compare>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

// A product as gemm_cpu meets it: batch products of (M,K) @ (K,N) on `threads` threads.
struct GemmShape {
  bool f64 = false;
  int64_t batch = 1, M = 0, N = 0, K = 0;
  bool a_trans = false, b_trans = false;
  int threads = 1;
  auto operator<=>(const GemmShape&) const = default;
};

// The a block's default size: mc = kGemmDefaultABlockKiB KiB / (kc * sizeof(T)) rows of op(a).
inline constexpr int kGemmDefaultABlockKiB = 192;

// A micro-kernel's tile, mr x nr ({0, 0}: the family's default), and the a block's size in KiB.
struct GemmTile {
  int mr = 0, nr = 0;
  int a_kib = kGemmDefaultABlockKiB;
  auto operator<=>(const GemmTile&) const = default;
  std::string name() const;  // "8x32", or "8x32/96K" for another a block
};

// The tiles of the family gemm_cpu runs now (gemm_cpu.cpp), its default first, each with the
// default a block.
std::vector<GemmTile> gemm_cpu_tiles(bool f64);

// gemm_cpu's question: the tile to run `shape` with: the forced one, else the tuned one, else
// {0, 0}. While tuning is on, a shape without a tile is remembered for gemm_tune_pending(), unless
// it has fewer than 2^21 multiply-adds (about 10 us: the timing would cost more than it saves).
GemmTile gemm_tile_for(const GemmShape& shape);

// Runs every product with `tile` (gemm_bench, the tests); GemmTile{}: as tuned again. Throws for a
// tile the family has not, or an a block outside [16, 4096] KiB.
void gemm_force_tile(GemmTile tile, bool f64);

// Turns tuning on, with the tiles `cache` holds for this CPU; an empty path keeps nothing on disk.
// A cache that cannot be used is left aside (and replaced at the next save): the warning returned
// says why, e.g. "gemm tuning: ~/.cache/tapegrad/gemm-tuning.json: machines[0].tiles[2]: field "m"
// must be an integer in [1, 2147483647], got -4: ignoring ...: it is timed again and rewritten"; ""
// when it loaded or did not exist.
std::string gemm_tuning_start(const std::filesystem::path& cache);
void gemm_tuning_stop();  // off, every tile forgotten

// A shape and its tile.
struct GemmTuningEntry {
  GemmShape shape;
  GemmTile tile;
  auto operator<=>(const GemmTuningEntry&) const = default;
};

struct GemmTuningReport {
  int shapes = 0;                        // timed now
  std::vector<GemmTuningEntry> chosen;   // their tiles
  double seconds = 0;                    // the timing took
  std::string warning;                   // the cache could not be written ("" when it was, or none is kept)
};
GemmTuningReport gemm_tune_pending();

// Where TAPEGRAD_GEMM_TUNING says the cache is: unset or empty, $XDG_CACHE_HOME/tapegrad/
// gemm-tuning.json (else $HOME/.cache/tapegrad/...; with neither, an empty path: tuned but not
// kept); "off", nullopt (no tuning); anything else, that file.
std::optional<std::filesystem::path> gemm_tuning_cache_from_environment();
// gemm_tuning_start with that cache, unless it says "off"; gemm_tuning_start's warning.
std::string gemm_tuning_start_from_environment();

// The cache file's content: the tiles chosen per shape, per machine.
struct GemmTuningMachine {
  std::string cpu, family;  // gemm_cpu_model(), gemm_cpu_kernel_name()
  std::vector<GemmTuningEntry> tiles;
  bool operator==(const GemmTuningMachine&) const = default;
};
// Read strictly (core/io/json_fields.h); throws tg::Error naming the place, e.g. "gemm tuning:
// <name>: machines[0].tiles[2]: field "m" must be an integer in [1, 2147483647], got -4", for
// anything but a cache file: not JSON, nested more than 5 deep, over 1 MiB, another format or
// version, more than 64 machines or 4096 tiles in one, a size outside [1, 2^31), a thread count
// outside [1, 4096], a tile that is not "<mr>x<nr>", an a block outside [16, 4096] KiB.
std::vector<GemmTuningMachine> gemm_tuning_from_json(std::string_view text, const std::string& name);
std::string gemm_tuning_to_json(const std::vector<GemmTuningMachine>& machines);

// This CPU's model ("Intel(R) Xeon(R) Processor"; the cpuid brand string), "unknown" elsewhere.
std::string gemm_cpu_model();

}  // namespace tg
