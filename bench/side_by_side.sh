#!/usr/bin/env bash
# side_by_side.sh: one training step of the same small Transformer in tapegrad and in libtorch,
# on the same cores, interleaved, on an idle machine and on a busy one, and tables of the medians.
#
#   bench/side_by_side.sh [--rounds N] [--steps N] [--configs "toy larger"] [--build-dir DIR] [--no-busy]
#
# Configures a Release build with -DTAPEGRAD_BENCH_LIBTORCH=ON in build/bench (needs
# libtorch-dev; ccache is used when installed; more CMake arguments in $CMAKE_ARGS), builds
# tapegrad_train_step_bench and tapegrad_train_step_libtorch, then, for each config, runs
# `rounds` rounds; each round runs every setting once, in turn, so load from other work on the
# machine falls on both frameworks alike:
#   tapegrad  threads 1, 2                              x wait: default (tapegrad's: spin 300
#                                                         rounds, then sleep), OMP_WAIT_POLICY=
#                                                         PASSIVE, GOMP_SPINCOUNT=300000 (libgomp's)
#   libtorch  torch threads 1, 2 x OPENBLAS_NUM_THREADS 1, 2 x OMP_WAIT_POLICY default, PASSIVE
#             (with OpenBLAS's own kernels where a given OPENBLAS_CORETYPE is slower:
#             choose_openblas_coretype, bench/libtorch_blas.sh)
# and then, unless --no-busy, the same again with a busy loop (a shell `while :`) running beside,
# which takes one of the two cores: the "busy machine" of issue 20.
# A setting's time is the median over its rounds of each run's median ms/step. Row "1 thread"
# takes each framework's best idle setting on one core (libtorch: torch 1 x OpenBLAS 1); row
# "2 threads" takes each framework's best idle setting of all (at most 2 cores), so libtorch is
# compared at its best thread count, never a handicapped one. The busy table compares each
# framework's default (no environment variables, all cores) and best setting, idle and busy.
# Raw JSON lines go to build/bench/side_by_side.jsonl. "% of peak" is of PEAK_GFLOPS, the 2-core
# FMA peak: measured by bench/fma_peak (tapegrad_fma_peak) before the rounds unless given in the
# environment.
set -euo pipefail

rounds=3
steps=""
configs="toy larger"
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/bench"
busy=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --no-busy) busy=0; shift ;;
    *) echo "usage: $0 [--rounds N] [--steps N] [--configs \"toy larger\"] [--build-dir DIR] [--no-busy]" >&2; exit 2 ;;
  esac
done

launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
mkdir -p "$build"
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of arguments
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTAPEGRAD_CUDA=OFF \
  -DTAPEGRAD_BENCH_LIBTORCH=ON "${launcher[@]}" ${CMAKE_ARGS:-} > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
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
choose_openblas_coretype env OPENBLAS_NUM_THREADS=1 "$theirs" --config toy --threads 1 --steps 6 --warmup 1

out="$build/side_by_side.jsonl"
: > "$out"
busy_loop=""
trap '[[ -n "$busy_loop" ]] && kill "$busy_loop" 2> /dev/null' EXIT

# Every setting once: the JSON lines, each tagged with the machine's state ("idle" or "busy")
# and the wait setting it ran with.
one_round() {
  local config=$1 n=$2 state=$3 wait t blas
  for wait in default PASSIVE SPIN; do
    local env_wait=()
    [[ $wait == PASSIVE ]] && env_wait=(OMP_WAIT_POLICY=PASSIVE)
    [[ $wait == SPIN ]] && env_wait=(GOMP_SPINCOUNT=300000)
    for t in 1 2; do
      env "${env_wait[@]}" "$ours" --config "$config" --threads "$t" --steps "$n" --warmup 2 |
        sed "s/}$/, \"machine\": \"$state\", \"wait\": \"$wait\"}/" >> "$out"
      [[ $wait == SPIN ]] && continue  # libgomp's own default: the libtorch runs have it as "default"
      for blas in 1 2; do
        env "${env_wait[@]}" OPENBLAS_NUM_THREADS=$blas "$theirs" --config "$config" --threads "$t" \
          --steps "$n" --warmup 2 | sed "s/}$/, \"machine\": \"$state\", \"wait\": \"$wait\"}/" >> "$out"
      done
    done
  done
}

echo "load before: $(uptime)"
for config in $configs; do
  if [[ -n "$steps" ]]; then n=$steps; elif [[ $config == toy ]]; then n=20; else n=8; fi
  for round in $(seq "$rounds"); do
    echo "$config: round $round of $rounds, idle ($n steps per run)" >&2
    one_round "$config" "$n" idle
    if ((busy)); then
      echo "$config: round $round of $rounds, busy" >&2
      bash -c 'while :; do :; done' &
      busy_loop=$!
      one_round "$config" "$n" busy
      kill "$busy_loop"
      wait "$busy_loop" 2> /dev/null || true
      busy_loop=""
    fi
  done
done
echo "load after:  $(uptime)"

python3 - "$out" <<'EOF'
import json, os, statistics, sys
from collections import defaultdict

runs = [json.loads(line) for line in open(sys.argv[1])]
# (machine, setting) -> the per-run medians, and the last run's other fields
times, cpu, info = defaultdict(list), defaultdict(list), {}
for r in runs:
    cores = max(r["threads"], int(r.get("openblas_threads", 1)))
    setting = (r["framework"], r["config"], r["threads"], r.get("openblas_threads", "-"), r["wait"].upper())
    key = (r["machine"], setting)
    times[key].append(r["median_ms"])
    cpu[key].append(r["cpu_ms"])
    info[setting] = dict(r, cores=cores)

def ms(machine, s):
    return statistics.median(times[(machine, s)]) if (machine, s) in times else None

def best(machine, framework, config, max_cores):
    cands = [(ms(machine, s), s) for (m, s) in times
             if m == machine and s[0] == framework and s[1] == config and info[s]["cores"] <= max_cores]
    return min(cands) if cands else (None, None)

def default(framework, config):  # no environment variables, every core
    return (framework, config, 2, "-" if framework == "tapegrad" else "2", "DEFAULT")

def name(s):
    fw, _, t, blas, wait = s
    wait = {"PASSIVE": "passive", "SPIN": "spin 300000", "DEFAULT": "default"}[wait]
    return f"omp {t} blas {blas} {wait}" if fw == "libtorch" else f"omp {t} {wait}"

peak = float(os.environ.get("PEAK_GFLOPS") or 0)  # 0: not measured (no fma_peak on this machine)
configs = list(dict.fromkeys(r["config"] for r in runs))
print()
print("idle machine: median ms/step over rounds (each run: median of its steps); ratio = libtorch / tapegrad;")
print(f"% of peak: of {peak:.0f} GFLOP/s (PEAK_GFLOPS: the 2-core peak bench/fma_peak prints)" if peak else
      "% of peak: not known (bench/fma_peak did not run and PEAK_GFLOPS is not set)")
print("regions/step: tapegrad's OpenMP parallel regions per step opened on more than one thread")
print(f"{'config':<7} {'thr':>3} {'tapegrad ms':>11} {'setting':<18} {'libtorch ms':>11} {'libtorch setting':<24} "
      f"{'ratio':>6} {'tg GFLOP/s':>10} {'tg %peak':>8} {'lt GFLOP/s':>10} {'tg RSS MiB':>10} {'lt RSS MiB':>10} "
      f"{'regions/step':>12}")
rows = {}
for config in configs:
    for cores in (1, 2):
        ms_tg, s_tg = best("idle", "tapegrad", config, cores)
        ms_lt, s_lt = best("idle", "libtorch", config, cores)
        if s_tg is None or s_lt is None:
            continue
        flop = info[s_tg]["matmul_gflop_per_step"]
        g_tg, g_lt = flop / ms_tg * 1e3, flop / ms_lt * 1e3
        rows[(config, cores)] = ms_tg
        pct = f"{100 * g_tg / peak:>7.1f}%" if peak else f"{'-':>8}"
        regions = info[s_tg].get("parallel_regions_per_step")
        print(f"{config:<7} {cores:>3} {ms_tg:>11.1f} {name(s_tg):<18} {ms_lt:>11.1f} {name(s_lt):<24} "
              f"{ms_lt / ms_tg:>6.2f} {g_tg:>10.1f} {pct} {g_lt:>10.1f} "
              f"{info[s_tg]['peak_rss_mib']:>10.0f} {info[s_lt]['peak_rss_mib']:>10.0f} "
              f"{'-' if regions is None else f'{regions:.0f}':>12}")
for config in configs:
    if (config, 1) in rows and (config, 2) in rows:
        print(f"{config}: tapegrad 2 threads vs 1: {rows[(config, 1)] / rows[(config, 2)]:.2f}x faster")

if any(m == "busy" for m, _ in times):
    print()
    print("busy machine (a busy loop on one of the 2 cores) beside idle: median ms/step; default = no")
    print("environment variables, all cores; best = the fastest setting in that state")
    print(f"{'config':<7} {'framework':<9} {'what':<8} {'setting':<24} {'idle ms':>8} {'busy ms':>8} {'busy/idle':>9}")
    for config in configs:
        for fw in ("tapegrad", "libtorch"):
            d = default(fw, config)
            _, best_idle = best("idle", fw, config, 2)
            _, best_busy = best("busy", fw, config, 2)
            for what, s in (("default", d), ("best", best_busy)):
                idle, busy = ms("idle", s), ms("busy", s)
                if idle is None or busy is None:
                    continue
                print(f"{config:<7} {fw:<9} {what:<8} {name(s):<24} {idle:>8.1f} {busy:>8.1f} {busy / idle:>8.2f}x")
            if ms("idle", d) is not None and best_idle is not None:
                print(f"{config:<7} {fw:<9} default idle / best idle ({name(best_idle)}): "
                      f"{ms('idle', d) / ms('idle', best_idle):.2f}")
        d_tg, d_lt = ms("busy", default("tapegrad", config)), best("busy", "libtorch", config, 2)[0]
        if d_tg is not None and d_lt is not None:
            print(f"{config}: busy, libtorch's best / tapegrad's default: {d_lt / d_tg:.2f}")

print()
print("every setting: machine, median ms/step over rounds, CPU ms/step (all threads), each run's median ms/step")
for m, s in sorted(times):
    print(f"  {m:<5} {s[0]:<8} {s[1]:<7} {name(s):<24} {ms(m, s):>8.1f} {statistics.median(cpu[(m, s)]):>8.1f}"
          f"  {times[(m, s)]}")
EOF
