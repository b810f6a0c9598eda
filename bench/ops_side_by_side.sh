#!/usr/bin/env bash
# Builds tapegrad's ops_bench and its libtorch counterpart (own build dir, Release) and prints
# one table: op, shape, threads, tapegrad us, libtorch us, libtorch/tapegrad (>1: tapegrad is
# faster), tapegrad/memcpy (1: as fast as a memcpy of the same bytes).
# The two programs run alternately, ROUNDS times each (default 3), and the table gives the
# median of the rounds (each round's number is itself a median of 11 samples), so that load
# from other work on the machine hits both alike.
#
#   bench/ops_side_by_side.sh [ops_bench args, e.g. --threads 2 --filter softmax --cpu-time]
# On a machine shared with other work: OMP_WAIT_POLICY=passive bench/ops_side_by_side.sh --cpu-time
#   ROUNDS=5 BUILD_DIR=build/h bench/ops_side_by_side.sh   (reuse a Release build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/ops-bench}
rounds=${ROUNDS:-3}
# Only the two benchmark targets are built, so an existing Release build dir may be reused.
if [[ -f "$build/CMakeCache.txt" ]]; then
  cmake "$build" -DTAPEGRAD_BENCH_LIBTORCH=ON >/dev/null
else
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTAPEGRAD_CUDA=OFF -DTAPEGRAD_BENCH_LIBTORCH=ON >/dev/null
fi
cmake --build "$build" --target tapegrad_ops_bench >/dev/null
have_torch=0
if cmake --build "$build" --target tapegrad_ops_libtorch >/dev/null 2>&1; then have_torch=1; fi
if ((have_torch)); then
  source "$(dirname "$0")/libtorch_blas.sh"
  require_openblas "$build/bench/tapegrad_ops_libtorch"
  choose_openblas_coretype env OPENBLAS_NUM_THREADS=1 "$build/bench/tapegrad_ops_libtorch" --threads 1 --filter FFN1
fi

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for ((r = 0; r < rounds; r++)); do
  "$build/bench/tapegrad_ops_bench" "$@" | sed -n 's/^RESULT /tg|/p' >>"$results"
  if ((have_torch)); then "$build/bench/tapegrad_ops_libtorch" "$@" | sed -n 's/^RESULT /lt|/p' >>"$results"; fi
done
((have_torch)) || echo "(libtorch not found: its columns stay empty)"
echo "# $(uptime)"
# Lines: tg|op|shape|threads|dir|us|memcpy_us and lt|op|shape|threads|dir|us.
awk -F'|' -v rounds="$rounds" '
  function median(list,   v, n, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n == 0 ? "" : (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2)
  }
  {
    key = $2 "|" $3 "|" $4 "|" $5
    if (!(key in seen)) { seen[key] = 1; order[++count] = key }
    us[$1, key] = us[$1, key] " " $6
    if ($1 == "tg") mc[key] = mc[key] " " $7
  }
  END {
    printf "| %-14s | %-26s | %s | %-7s | %12s | %12s | %12s | %10s |\n", "op", "shape", "threads", "dir",
           "tapegrad us", "libtorch us", "lt/tg ratio", "tg/memcpy"
    printf "|%s|%s|%s|%s|%s|%s|%s|%s|\n", "----------------", "----------------------------", "---------", "---------",
           "-------------:", "-------------:", "-------------:", "-----------:"
    for (i = 1; i <= count; i++) {
      key = order[i]; split(key, k, "|")
      tg = median(us["tg", key]); lt = median(us["lt", key]); m = median(mc[key])
      printf "| %-14s | %-26s | %7s | %-7s | %12.1f | %12s | %12s | %10.2f |\n", k[1], k[2], k[3], k[4], tg,
             lt == "" ? "-" : sprintf("%.1f", lt), lt == "" ? "-" : sprintf("%.2f", lt / tg), tg / m
    }
  }' "$results"
