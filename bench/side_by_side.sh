#!/usr/bin/env bash
# side_by_side.sh: one training step of the same small Transformer in tapegrad and in libtorch,
# on the same cores, interleaved, and a table of the medians.
#
#   bench/side_by_side.sh [--rounds N] [--steps N] [--configs "toy larger"] [--build-dir DIR]
#
# Configures a Release build with -DTAPEGRAD_BENCH_LIBTORCH=ON in build/bench (needs
# libtorch-dev; ccache is used when installed; more CMake arguments in $CMAKE_ARGS), builds
# tapegrad_train_step_bench and tapegrad_train_step_libtorch, then, for each config, runs
# `rounds` rounds; each round runs every setting once, in turn, so load from other work on the
# machine falls on both frameworks alike:
#   tapegrad  threads 1, 2                              x OMP_WAIT_POLICY default, PASSIVE
#   libtorch  torch threads 1, 2 x OPENBLAS_NUM_THREADS 1, 2 x OMP_WAIT_POLICY default, PASSIVE
# A setting's time is the median over its rounds of each run's median ms/step. Row "1 thread"
# takes each framework's best setting on one core (libtorch: torch 1 x OpenBLAS 1); row
# "2 threads" takes each framework's best setting of all (at most 2 cores), so libtorch is
# compared at its best thread count, never a handicapped one. Raw JSON lines go to
# build/bench/side_by_side.jsonl. "% of peak" is of PEAK_GFLOPS, the 2-core FMA peak: measured
# by bench/fma_peak (tapegrad_fma_peak) before the rounds unless given in the environment.
set -euo pipefail

rounds=3
steps=""
configs="toy larger"
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/bench"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--steps N] [--configs \"toy larger\"] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done

launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTAPEGRAD_CUDA=OFF \
  -DTAPEGRAD_BENCH_LIBTORCH=ON "${launcher[@]}" ${CMAKE_ARGS:-} > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target tapegrad_train_step_bench tapegrad_train_step_libtorch
# The 2-core FMA peak for the % of peak column: PEAK_GFLOPS if given, else measured here.
if [[ -z "${PEAK_GFLOPS:-}" ]] && cmake --build "$build" --target tapegrad_fma_peak > /dev/null 2>&1; then
  PEAK_GFLOPS=$("$build/bench/tapegrad_fma_peak" | sed -n 's/^PEAK_GFLOPS=\([0-9.]*\).*/\1/p')
  export PEAK_GFLOPS
fi
ours="$build/bench/tapegrad_train_step_bench"
theirs="$build/bench/tapegrad_train_step_libtorch"
source "$root/bench/libtorch_blas.sh"
require_openblas "$theirs"

out="$build/side_by_side.jsonl"
: > "$out"
echo "load before: $(uptime)"
for config in $configs; do
  if [[ -n "$steps" ]]; then n=$steps; elif [[ $config == toy ]]; then n=20; else n=8; fi
  for round in $(seq "$rounds"); do
    echo "$config: round $round of $rounds ($n steps per run)" >&2
    for wait in default PASSIVE; do
      env_wait=()
      [[ $wait == PASSIVE ]] && env_wait=(OMP_WAIT_POLICY=PASSIVE)
      for t in 1 2; do
        env "${env_wait[@]}" "$ours" --config "$config" --threads "$t" --steps "$n" --warmup 2 >> "$out"
        for blas in 1 2; do
          env "${env_wait[@]}" OPENBLAS_NUM_THREADS=$blas "$theirs" --config "$config" --threads "$t" \
            --steps "$n" --warmup 2 >> "$out"
        done
      done
    done
  done
done
echo "load after:  $(uptime)"

python3 - "$out" <<'EOF'
import json, os, statistics, sys
from collections import defaultdict

runs = [json.loads(line) for line in open(sys.argv[1])]
# setting -> the per-run medians, and the last run's other fields
times, cpu, info = defaultdict(list), defaultdict(list), {}
for r in runs:
    cores = max(r["threads"], int(r.get("openblas_threads", 1)))
    setting = (r["framework"], r["config"], r["threads"], r.get("openblas_threads", "-"), r["omp_wait_policy"])
    times[setting].append(r["median_ms"])
    cpu[setting].append(r["cpu_ms"])
    info[setting] = dict(r, cores=cores)

def best(framework, config, max_cores):
    cands = [(statistics.median(times[s]), s) for s in times
             if s[0] == framework and s[1] == config and info[s]["cores"] <= max_cores]
    return min(cands) if cands else (None, None)

def name(s):
    fw, _, t, blas, wait = s
    wait = "passive" if wait.upper() == "PASSIVE" else "active"
    return f"omp {t} blas {blas} {wait}" if fw == "libtorch" else f"omp {t} {wait}"

peak = float(os.environ.get("PEAK_GFLOPS", 174))
print()
print("median ms/step over rounds (each run: median of its steps); ratio = libtorch / tapegrad;")
print(f"% of peak: of {peak:.0f} GFLOP/s (PEAK_GFLOPS: the 2-core peak bench/fma_peak prints; default 174)")
head = (f"{'config':<7} {'thr':>3} {'tapegrad ms':>11} {'setting':<16} {'libtorch ms':>11} {'libtorch setting':<24} "
        f"{'ratio':>6} {'tg GFLOP/s':>10} {'tg %peak':>8} {'lt GFLOP/s':>10} {'tg RSS MiB':>10} {'lt RSS MiB':>10}")
print(head)
rows = {}
for config in dict.fromkeys(r["config"] for r in runs):
    for cores in (1, 2):
        ms_tg, s_tg = best("tapegrad", config, cores)
        ms_lt, s_lt = best("libtorch", config, cores)
        if s_tg is None or s_lt is None:
            continue
        flop = info[s_tg]["matmul_gflop_per_step"]
        g_tg, g_lt = flop / ms_tg * 1e3, flop / ms_lt * 1e3
        rows[(config, cores)] = ms_tg
        print(f"{config:<7} {cores:>3} {ms_tg:>11.1f} {name(s_tg):<16} {ms_lt:>11.1f} {name(s_lt):<24} "
              f"{ms_lt / ms_tg:>6.2f} {g_tg:>10.1f} {100 * g_tg / peak:>7.1f}% {g_lt:>10.1f} "
              f"{info[s_tg]['peak_rss_mib']:>10.0f} {info[s_lt]['peak_rss_mib']:>10.0f}")
for config in dict.fromkeys(r["config"] for r in runs):
    if (config, 1) in rows and (config, 2) in rows:
        print(f"{config}: tapegrad 2 threads vs 1: {rows[(config, 1)] / rows[(config, 2)]:.2f}x faster")
print()
print("every setting: median ms/step over rounds, CPU ms/step (all threads), each run's median ms/step")
for s in sorted(times):
    print(f"  {s[0]:<8} {s[1]:<7} {name(s):<24} {statistics.median(times[s]):>8.1f} {statistics.median(cpu[s]):>8.1f}"
          f"  {times[s]}")
EOF
