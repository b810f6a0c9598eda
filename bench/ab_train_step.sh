#!/usr/bin/env bash
# Interleaved A/B of the training step: runs two builds' tapegrad_train_step_bench in turn
# (A, B, A, B, ...), so that whatever else the machine does falls on both alike, and prints each
# side's median ms/step over the rounds with its spread (min and max), and B/A.
#
#   bench/ab_train_step.sh A_BENCH B_BENCH [ROUNDS] [bench args...]
#   e.g. bench/ab_train_step.sh ../base/build/ci/bench/tapegrad_train_step_bench \
#          build/ci/bench/tapegrad_train_step_bench 15 --threads 2 --steps 30
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 A_BENCH B_BENCH [ROUNDS] [bench args...]" >&2
  exit 2
fi
a=$1 b=$2
rounds=${3:-15}
shift $(($# < 3 ? $# : 3))
for bin in "$a" "$b"; do
  [[ -x $bin ]] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "$0: ROUNDS must be a positive integer, got '$rounds'" >&2; exit 2; }

median_ms() { sed -n 's/.*"median_ms": \([0-9.]*\).*/\1/p'; }
results=$(mktemp) && trap 'rm -f "$results"' EXIT
for ((r = 0; r < rounds; ++r)); do
  echo "A $("$a" "$@" | median_ms)" >>"$results"
  echo "B $("$b" "$@" | median_ms)" >>"$results"
done
# Per side: the median of its rounds' medians, min, max; then B/A of the medians.
awk '
  { ms[$1, ++n[$1]] = $2 }
  function median(side,   i, j, t, v, k) {
    k = n[side]
    for (i = 1; i <= k; ++i) v[i] = ms[side, i]
    for (i = 2; i <= k; ++i) for (j = i; j > 1 && v[j - 1] > v[j]; --j) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    lo[side] = v[1]; hi[side] = v[k]
    return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  END {
    ma = median("A"); mb = median("B")
    printf "A: median %.2f ms/step over %d rounds (min %.2f, max %.2f)\n", ma, n["A"], lo["A"], hi["A"]
    printf "B: median %.2f ms/step over %d rounds (min %.2f, max %.2f)\n", mb, n["B"], lo["B"], hi["B"]
    printf "B/A: %.3f\n", mb / ma
  }' "$results"
