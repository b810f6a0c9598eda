#!/usr/bin/env bash
# Peak memory (RSS increase) and time of one attention layer's forward + backward, fused vs
# composed tapegrad vs libtorch, each (variant, T) in a fresh process. Prints a Markdown table.
#
#   bench/attention_memory.sh [BUILD_DIR] [T ...]       (default build/release, T = 256 ... 4096)
#   HEADS=4 HEAD_SIZE=64 REPS=3 THREADS=2 bench/attention_memory.sh build/release
#
# BUILD_DIR holds bench/tapegrad_attention_memory_bench, and bench/tapegrad_attention_memory_libtorch
# when configured with -DTAPEGRAD_BENCH_LIBTORCH=ON (its column is "-" otherwise).
set -euo pipefail
build=${1:-build/release}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 512 1024 2048 4096)
heads=${HEADS:-4} head_size=${HEAD_SIZE:-64} reps=${REPS:-3} threads=${THREADS:-0}
tapegrad=$build/bench/tapegrad_attention_memory_bench
libtorch=$build/bench/tapegrad_attention_memory_libtorch
[ -x "$tapegrad" ] || { echo "attention_memory.sh: no $tapegrad (build the bench first)" >&2; exit 1; }
if [ -x "$libtorch" ]; then
  source "$(dirname "$0")/libtorch_blas.sh"
  require_openblas "$libtorch"
  choose_openblas_coretype "$libtorch" --T 1024 --heads "$heads" --head-size "$head_size" --reps 1 --threads 1
fi

# run PROGRAM ARGS...: "delta_mib ms" of one fresh process
run() {
  "$@" --heads "$heads" --head-size "$head_size" --reps "$reps" --threads "$threads" |
    sed -n 's/.*threads=\([0-9]*\).*delta_mib=\([-0-9.]*\) ms=\([0-9.]*\).*/\2 \3 \1/p'
}

echo "One attention layer, forward + backward: q, k, v (1, $heads, T, $head_size) float32, no mask;"
echo "peak RSS increase over the RSS with the inputs allocated (MiB), median time of $reps runs (ms)."
echo
echo "| T | composed MiB | fused MiB | libtorch MiB | composed ms | fused ms | libtorch ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for T in "${sizes[@]}"; do
  read -r c_mib c_ms used_threads < <(run "$tapegrad" --variant composed --T "$T")
  read -r f_mib f_ms _ < <(run "$tapegrad" --variant fused --T "$T")
  l_mib=- l_ms=-
  if [ -x "$libtorch" ]; then read -r l_mib l_ms _ < <(run "$libtorch" --T "$T"); fi
  echo "| $T | $c_mib | $f_mib | $l_mib | $c_ms | $f_ms | $l_ms |"
done
echo
echo "tapegrad threads: $used_threads; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
