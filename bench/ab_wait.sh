#!/usr/bin/env bash
# Interleaved A/B of how two builds' OpenMP threads wait: each round runs A's and B's
# tapegrad_train_step_bench with their default wait, then A's with libgomp's own spin
# (GOMP_SPINCOUNT=300000) as the reference, on the idle machine and then beside a busy loop on
# one core; prints, per config and machine, the medians over rounds of each run's median ms/step
# and their ratios (docs/benchmarks.md, "Busy machine").
#
#   bench/ab_wait.sh A_BENCH B_BENCH [ROUNDS] [CONFIGS] [STEPS]
#   e.g. bench/ab_wait.sh ../base/build/bench/bench/tapegrad_train_step_bench \
#          build/bench/bench/tapegrad_train_step_bench 7 "toy larger" 20
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 A_BENCH B_BENCH [ROUNDS] [CONFIGS] [STEPS]" >&2
  exit 2
fi
a=$1 b=$2 rounds=${3:-7} configs=${4:-toy larger} steps=${5:-20}
for bin in "$a" "$b"; do
  [[ -x $bin ]] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done
results=$(mktemp) && busy="" && trap 'rm -f "$results"; [[ -n $busy ]] && kill "$busy" 2> /dev/null' EXIT
run() {  # run BENCH CONFIG [VAR=VALUE]: the run's median ms/step
  env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "${@:3}" "$1" --config "$2" --threads 2 --steps "$steps" --warmup 2 |
    sed -n 's/.*"median_ms": \([0-9.]*\).*/\1/p'
}
for config in $configs; do
  for machine in idle busy; do
    [[ $machine == busy ]] && { bash -c 'while :; do :; done' & busy=$!; }
    for ((r = 0; r < rounds; ++r)); do
      echo "$config $machine A $(run "$a" "$config")" >> "$results"
      echo "$config $machine B $(run "$b" "$config")" >> "$results"
      echo "$config $machine spin $(run "$a" "$config" GOMP_SPINCOUNT=300000)" >> "$results"
    done
    [[ -n $busy ]] && { kill "$busy"; busy=""; }
  done
done
/usr/bin/python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    config, machine, side, ms = line.split()
    runs[config, machine, side].append(float(ms))
print("config machine   A ms    B ms  spin ms  A/spin  B/spin   B/A  rounds")
for config, machine in dict.fromkeys((c, m) for c, m, _ in runs):
    a, b, spin = (statistics.median(runs[config, machine, side]) for side in ("A", "B", "spin"))
    print(f"{config:6} {machine:7} {a:7.2f} {b:7.2f} {spin:8.2f} {a / spin:7.3f} {b / spin:7.3f} {b / a:5.3f}"
          f"  {len(runs[config, machine, 'A'])}")
PY
