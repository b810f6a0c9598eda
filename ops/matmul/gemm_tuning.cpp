#include "ops/matmul/gemm_tuning.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/io/json_fields.h"
#include "core/io/output_file.h"
#include "core/io/untrusted_text.h"
#include "ops/matmul/gemm_cpu.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tg {

namespace {

using nlohmann::json;

constexpr const char* kTuningOp = "gemm tuning";
constexpr const char* kTuningFormat = "tapegrad gemm tuning";
constexpr int kTuningVersion = 1;
constexpr size_t kMaxCacheBytes = 1 << 20;
constexpr int kMaxCacheDepth = 5;  // the file's object > machines > a machine > tiles > a tile
constexpr size_t kMaxMachines = 64, kMaxTiles = 4096, kMaxPending = 1024, kMaxCpuName = 256;
constexpr int64_t kMaxGemmSize = (int64_t(1) << 31) - 1;
constexpr int kMaxTuningThreads = 4096, kMaxTileSide = 64, kMinABlockKiB = 16, kMaxABlockKiB = 4096;
constexpr int kABlockKiBTried[] = {96, 384};            // beside kGemmDefaultABlockKiB, for the fastest tile
constexpr int kTuningRounds = 7;                        // samples per tile, taken in turn with the other tiles'
constexpr double kSampleSeconds = 1e-3;                 // a sample repeats the product for at least this long
constexpr double kKeepDefaultWithin = 0.97;             // another tile must be 3% faster than the default
constexpr int64_t kMaxTimedBytes = int64_t(256) << 20;  // larger products keep the default untimed
constexpr double kMinTunedWork = 1 << 21;               // multiply-adds (about 10 us) below which a shape is not timed

// What gemm_tile_for reads: one lock, taken only while tuning is on or a tile is forced.
struct TuningState {
  std::mutex mutex;
  std::atomic<bool> active{false};  // on, or a tile forced
  bool on = false;
  std::filesystem::path cache;
  std::map<GemmShape, GemmTile> tiles;
  std::set<GemmShape> pending;
  GemmTile forced[2];  // f32, f64
};

TuningState& tuning_state() {
  static TuningState s;
  return s;
}

bool is_forced(const GemmTile& tile) { return tile.mr != 0; }

void update_tuning_active(TuningState& s) { s.active = s.on || is_forced(s.forced[0]) || is_forced(s.forced[1]); }

// Whether the family has the tile's kernel, and its a block is one gemm_cpu takes.
bool runs_here(const GemmTile& tile, bool f64) {
  const std::vector<GemmTile> tiles = gemm_cpu_tiles(f64);
  return tile.a_kib >= kMinABlockKiB && tile.a_kib <= kMaxABlockKiB &&
         std::any_of(tiles.begin(), tiles.end(), [&](const GemmTile& t) { return t.mr == tile.mr && t.nr == tile.nr; });
}

// ---- The cache file ----

// The errors name the place in the file as their op: "gemm tuning: <file>: machines[0].tiles[2]".

// Field `key` of `object` (which has it): an integer in [lo, hi].
int64_t integer_in(const json& object, const char* key, int64_t lo, int64_t hi, const std::string& place) {
  int64_t value = 0;
  read_field(object, key, value, place.c_str());
  if (value < lo || value > hi)
    throw Error(place, fmt::format("field \"{}\" must be an integer in [{}, {}], got {}", key, lo, hi, value));
  return value;
}

// Field `key` of `object` (which has it): an array of at most `max` entries.
const json& array_field(const json& object, const char* key, size_t max, const std::string& place) {
  const json& v = object.at(key);
  if (!v.is_array() || v.size() > max)
    throw Error(place, fmt::format("field \"{}\" must be an array of at most {} entries, got {}", key, max,
                                   json_excerpt(v)));
  return v;
}

void require_object(const json& value, const std::string& place) {
  if (!value.is_object()) throw Error(place, "must be a JSON object, got " + json_excerpt(value));
}

// "<mr>x<nr>", each side in [1, 64].
GemmTile parse_tile(const std::string& s, const std::string& place) {
  GemmTile t;
  const char *p = s.data(), *end = s.data() + s.size();
  auto side = [&](int& value) {
    const auto [next, ec] = std::from_chars(p, end, value);
    const bool ok = ec == std::errc() && next != p && value >= 1 && value <= kMaxTileSide;
    p = next;
    return ok;
  };
  if (!side(t.mr) || p == end || *p++ != 'x' || !side(t.nr) || p != end)
    throw Error(place, fmt::format("field \"tile\" must be \"<rows>x<columns>\", each 1 to {}, got {}", kMaxTileSide,
                                   excerpt(s)));
  return t;
}

GemmTuningEntry parse_tuning_entry(const json& e, const std::string& place) {
  require_object(e, place);
  require_fields(e, {"dtype", "batch", "m", "n", "k", "a_trans", "b_trans", "threads", "tile", "a_block_kib"},
                 place.c_str());
  GemmTuningEntry entry;
  GemmShape& s = entry.shape;
  std::string dtype, tile;
  read_field(e, "dtype", dtype, place.c_str());
  if (dtype != "float32" && dtype != "float64")
    throw Error(place, "field \"dtype\" must be \"float32\" or \"float64\", got " + excerpt(dtype));
  s.f64 = dtype == "float64";
  s.batch = integer_in(e, "batch", 1, kMaxGemmSize, place);
  s.M = integer_in(e, "m", 1, kMaxGemmSize, place);
  s.N = integer_in(e, "n", 1, kMaxGemmSize, place);
  s.K = integer_in(e, "k", 1, kMaxGemmSize, place);
  read_field(e, "a_trans", s.a_trans, place.c_str());
  read_field(e, "b_trans", s.b_trans, place.c_str());
  s.threads = static_cast<int>(integer_in(e, "threads", 1, kMaxTuningThreads, place));
  read_field(e, "tile", tile, place.c_str());
  entry.tile = parse_tile(tile, place);
  entry.tile.a_kib = static_cast<int>(integer_in(e, "a_block_kib", kMinABlockKiB, kMaxABlockKiB, place));
  return entry;
}

json tuning_entry_json(const GemmTuningEntry& e) {
  const GemmShape& s = e.shape;
  return {{"dtype", s.f64 ? "float64" : "float32"},
          {"batch", s.batch},
          {"m", s.M},
          {"n", s.N},
          {"k", s.K},
          {"a_trans", s.a_trans},
          {"b_trans", s.b_trans},
          {"threads", s.threads},
          {"tile", fmt::format("{}x{}", e.tile.mr, e.tile.nr)},
          {"a_block_kib", e.tile.a_kib}};
}

// This machine's section of the cache.
GemmTuningMachine this_machine() { return {gemm_cpu_model(), gemm_cpu_kernel_name(), {}}; }

bool same_machine(const GemmTuningMachine& a, const GemmTuningMachine& b) {
  return a.cpu == b.cpu && a.family == b.family;
}

// The cache's machines; none where it does not exist.
std::vector<GemmTuningMachine> read_tuning_cache(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return {};
  const InputFile file(kTuningOp, path);
  if (file.size() > kMaxCacheBytes) file.fail(fmt::format("over {} bytes: not a tuning cache", kMaxCacheBytes));
  return gemm_tuning_from_json(file.read_all(), path.string());
}

// ---- Timing ----

double median_of(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// The median seconds of one product of `shape` with each tile, the tiles sampled in turn.
template <class T>
std::vector<double> time_tiles(const GemmShape& s, const std::vector<GemmTile>& tiles) {
  std::vector<T> a(s.batch * s.M * s.K), b(s.batch * s.K * s.N), c(s.batch * s.M * s.N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = T(int64_t(i % 17) - 8) / T(8);
  for (size_t i = 0; i < b.size(); ++i) b[i] = T(int64_t(i % 13) - 6) / T(6);
  std::vector<int64_t> a_off(s.batch), b_off(s.batch);
  for (int64_t p = 0; p < s.batch; ++p) a_off[p] = p * s.M * s.K, b_off[p] = p * s.K * s.N;
  const GemmMatrix<T> am{a.data(), a_off.data(), s.a_trans ? s.M : s.K, s.a_trans};
  const GemmMatrix<T> bm{b.data(), b_off.data(), s.b_trans ? s.K : s.N, s.b_trans};
  auto seconds = [&](GemmTile tile, int reps) {
    gemm_force_tile(tile, s.f64);
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) gemm_cpu<T>(c.data(), am, bm, s.batch, s.M, s.N, s.K);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
  };
  for (const GemmTile& tile : tiles) seconds(tile, 1);  // packing buffers grown, caches warm
  const int reps = std::max(1, static_cast<int>(kSampleSeconds / seconds(tiles[0], 1)));
  std::vector<std::vector<double>> samples(tiles.size());
  for (int round = 0; round < kTuningRounds; ++round)
    for (size_t t = 0; t < tiles.size(); ++t) samples[t].push_back(seconds(tiles[t], reps));
  gemm_force_tile({}, s.f64);
  std::vector<double> medians;
  for (const std::vector<double>& tile_samples : samples) medians.push_back(median_of(tile_samples));
  return medians;
}

// The fastest of `candidates` for `shape`: the first unless another is clearly faster.
GemmTile fastest_of(const GemmShape& shape, const std::vector<GemmTile>& candidates) {
  if (candidates.size() == 1) return candidates[0];
  const std::vector<double> t =
      shape.f64 ? time_tiles<double>(shape, candidates) : time_tiles<float>(shape, candidates);
  const size_t best = std::min_element(t.begin(), t.end()) - t.begin();
  return t[best] < kKeepDefaultWithin * t[0] ? candidates[best] : candidates[0];
}

// The fastest tile for `shape` (the family's tiles with the default a block, then the fastest of
// them with the other a blocks); the default where the operands' copies for timing would take
// more than kMaxTimedBytes.
GemmTile fastest_tile(const GemmShape& shape) {
  const std::vector<GemmTile> tiles = gemm_cpu_tiles(shape.f64);
  const double M = double(shape.M), N = double(shape.N), K = double(shape.K);
  const double bytes = double(shape.batch) * (M * K + K * N + M * N) * (shape.f64 ? 8 : 4);
  if (bytes > double(kMaxTimedBytes)) return tiles[0];
  const GemmTile best = fastest_of(shape, tiles);
  std::vector<GemmTile> blocks = {best};
  for (int kib : kABlockKiBTried) blocks.push_back({best.mr, best.nr, kib});
  return fastest_of(shape, blocks);
}

// Writes this machine's tiles into the cache beside the other machines' sections found there.
void save_tuning_cache(const std::filesystem::path& path, const std::map<GemmShape, GemmTile>& tiles) {
  std::vector<GemmTuningMachine> machines;
  try {
    machines = read_tuning_cache(path);
  } catch (const Error&) {  // replaced whole: gemm_tuning_start said why
  }
  GemmTuningMachine mine = this_machine();
  auto it = std::find_if(machines.begin(), machines.end(), [&](auto& m) { return same_machine(m, mine); });
  if (it == machines.end()) {
    if (machines.size() == kMaxMachines) machines.erase(machines.begin());  // the oldest section goes
    machines.push_back(mine);
    it = machines.end() - 1;
  }
  GemmTuningMachine& section = *it;
  std::map<GemmShape, GemmTile> merged;
  for (const GemmTuningEntry& e : section.tiles) merged[e.shape] = e.tile;
  for (const auto& [shape, tile] : tiles) merged[shape] = tile;
  section.tiles.clear();
  for (const auto& [shape, tile] : merged) section.tiles.push_back({shape, tile});
  if (section.tiles.size() > kMaxTiles) section.tiles.resize(kMaxTiles);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  write_file_atomically(kTuningOp, path, gemm_tuning_to_json(machines));
}

}  // namespace

std::string GemmTile::name() const {
  return a_kib == kGemmDefaultABlockKiB ? fmt::format("{}x{}", mr, nr) : fmt::format("{}x{}/{}K", mr, nr, a_kib);
}

GemmTile gemm_tile_for(const GemmShape& shape) {
  TuningState& s = tuning_state();
  if (!s.active.load(std::memory_order_acquire)) return {};
  const std::lock_guard lock(s.mutex);
  if (is_forced(s.forced[shape.f64])) return s.forced[shape.f64];
  if (!s.on || double(shape.batch) * double(shape.M) * double(shape.N) * double(shape.K) < kMinTunedWork) return {};
  const auto it = s.tiles.find(shape);
  if (it != s.tiles.end()) return it->second;
  if (s.pending.size() < kMaxPending) s.pending.insert(shape);
  return {};
}

void gemm_force_tile(GemmTile tile, bool f64) {
  if (is_forced(tile) && !runs_here(tile, f64)) {
    std::string names;
    for (const GemmTile& t : gemm_cpu_tiles(f64)) names += (names.empty() ? "" : ", ") + t.name();
    throw Error(kTuningOp, fmt::format("no {} tile {} in the {} kernels (a block {} to {} KiB); they are {}",
                                       f64 ? "float64" : "float32", tile.name(), gemm_cpu_kernel_name(), kMinABlockKiB,
                                       kMaxABlockKiB, names));
  }
  TuningState& s = tuning_state();
  const std::lock_guard lock(s.mutex);
  s.forced[f64] = tile;
  update_tuning_active(s);
}

std::string gemm_tuning_start(const std::filesystem::path& cache) {
  std::vector<GemmTuningMachine> machines;
  std::string warning;
  if (!cache.empty()) {
    try {
      machines = read_tuning_cache(cache);
    } catch (const Error& e) {
      warning = fmt::format("{}: ignoring {}: it is timed again and rewritten", e.what(), cache.string());
    }
  }
  const GemmTuningMachine mine = this_machine();
  std::map<GemmShape, GemmTile> tiles;
  for (const GemmTuningMachine& m : machines)
    if (same_machine(m, mine))
      for (const GemmTuningEntry& e : m.tiles) {
        if (runs_here(e.tile, e.shape.f64)) tiles[e.shape] = e.tile;
      }
  TuningState& s = tuning_state();
  const std::lock_guard lock(s.mutex);
  s.on = true, s.cache = cache, s.tiles = std::move(tiles), s.pending.clear();
  update_tuning_active(s);
  return warning;
}

void gemm_tuning_stop() {
  TuningState& s = tuning_state();
  const std::lock_guard lock(s.mutex);
  s.on = false, s.cache.clear(), s.tiles.clear(), s.pending.clear();
  update_tuning_active(s);
}

GemmTuningReport gemm_tune_pending() {
  TuningState& s = tuning_state();
  std::set<GemmShape> pending;
  {
    const std::lock_guard lock(s.mutex);
    if (!s.on || s.pending.empty()) return {};
    pending.swap(s.pending);
  }
  GemmTuningReport report;
  const auto start = std::chrono::steady_clock::now();
  std::map<GemmShape, GemmTile> chosen;
  for (const GemmShape& shape : pending)  // timed on the threads the shape names (gemm_cpu runs on all of them)
    if (shape.threads == omp_get_max_threads()) chosen[shape] = fastest_tile(shape);
  report.shapes = static_cast<int>(chosen.size());
  for (const auto& [shape, tile] : chosen) report.chosen.push_back({shape, tile});
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::filesystem::path cache;
  std::map<GemmShape, GemmTile> all;
  {
    const std::lock_guard lock(s.mutex);
    s.tiles.insert(chosen.begin(), chosen.end());
    cache = s.cache, all = s.tiles;
  }
  if (!cache.empty()) try {
      save_tuning_cache(cache, all);
    } catch (const std::exception& e) {  // tg::Error, or std::filesystem's for the folder
      report.warning = fmt::format("gemm tuning: the tiles are not kept: {}", e.what());
    }
  return report;
}

std::optional<std::filesystem::path> gemm_tuning_cache_from_environment() {
  const char* setting = std::getenv("TAPEGRAD_GEMM_TUNING");
  if (setting && std::string_view(setting) == "off") return std::nullopt;
  if (setting && *setting) return std::filesystem::path(setting);
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && *xdg == '/') return std::filesystem::path(xdg) / "tapegrad" / "gemm-tuning.json";
  if (home && *home == '/') return std::filesystem::path(home) / ".cache" / "tapegrad" / "gemm-tuning.json";
  return std::filesystem::path();
}

std::string gemm_tuning_start_from_environment() {
  const std::optional<std::filesystem::path> cache = gemm_tuning_cache_from_environment();
  return cache ? gemm_tuning_start(*cache) : std::string();
}

std::vector<GemmTuningMachine> gemm_tuning_from_json(std::string_view text, const std::string& name) {
  const std::string place = fmt::format("{}: {}", kTuningOp, name);
  if (text.size() > kMaxCacheBytes)
    throw Error(place, fmt::format("over {} bytes: not a tuning cache", kMaxCacheBytes));
  const json doc = parse_object(std::string(text), "the file", place.c_str(), kMaxCacheDepth);
  require_fields(doc, {"format", "version", "machines"}, place.c_str());
  std::string format;
  read_field(doc, "format", format, place.c_str());
  if (format != kTuningFormat)
    throw Error(place, fmt::format("field \"format\" must be \"{}\", got {}", kTuningFormat, excerpt(format)));
  if (integer_in(doc, "version", 1, INT64_MAX, place) != kTuningVersion)
    throw Error(place, fmt::format("field \"version\" must be {}", kTuningVersion));
  std::vector<GemmTuningMachine> machines;
  const json& list = array_field(doc, "machines", kMaxMachines, place);
  for (size_t m = 0; m < list.size(); ++m) {
    const std::string at = fmt::format("{}: machines[{}]", place, m);
    require_object(list[m], at);
    require_fields(list[m], {"cpu", "family", "tiles"}, at.c_str());
    GemmTuningMachine machine;
    read_field(list[m], "cpu", machine.cpu, at.c_str());
    read_field(list[m], "family", machine.family, at.c_str());
    if (machine.cpu.size() > kMaxCpuName || machine.family.size() > kMaxCpuName)
      throw Error(at, fmt::format("fields \"cpu\" and \"family\" must be at most {} bytes", kMaxCpuName));
    const json& tiles = array_field(list[m], "tiles", kMaxTiles, at);
    for (size_t t = 0; t < tiles.size(); ++t)
      machine.tiles.push_back(parse_tuning_entry(tiles[t], fmt::format("{}.tiles[{}]", at, t)));
    machines.push_back(std::move(machine));
  }
  return machines;
}

std::string gemm_tuning_to_json(const std::vector<GemmTuningMachine>& machines) {
  json list = json::array();
  for (const GemmTuningMachine& m : machines) {
    json tiles = json::array();
    for (const GemmTuningEntry& e : m.tiles) tiles.push_back(tuning_entry_json(e));
    list.push_back({{"cpu", m.cpu}, {"family", m.family}, {"tiles", std::move(tiles)}});
  }
  return json{{"format", kTuningFormat}, {"version", kTuningVersion}, {"machines", std::move(list)}}.dump(1) + "\n";
}

std::string gemm_cpu_model() {
  std::string model;
#if defined(__x86_64__)
  unsigned regs[12] = {};
  if (unsigned(__get_cpuid_max(0x80000000, nullptr)) >= 0x80000004u)
    for (unsigned leaf = 0; leaf < 3; ++leaf)
      __get_cpuid(0x80000002 + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2], &regs[4 * leaf + 3]);
  const char* bytes = reinterpret_cast<const char*>(regs);
  for (size_t i = 0; i < sizeof regs && bytes[i]; ++i)
    if (bytes[i] >= ' ' && bytes[i] <= '~') model += bytes[i];
  model.erase(0, model.find_first_not_of(' '));
  model.erase(model.find_last_not_of(' ') + 1);
#endif
  return model.empty() ? "unknown" : model;
}

}  // namespace tg
