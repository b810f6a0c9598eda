#!/usr/bin/env bash
# Data-parallel training on one machine: `mpirun -np 2 tapegrad train --threads 1` (2 ranks x 1
# thread, gradients averaged with MPI) against `tapegrad train --threads 2` (1 process x 2
# threads), on the toy and larger configs of bench/train_step_common.h as `tapegrad train` runs
# them (task lm, --block-size = seq, dropout 0). Prints ms per update (tapegrad train's "done:"
# line, evaluation excluded) and, for 2 ranks, rank 0's time in MPI_Wait for the gradients.
# OpenMP threads wait passively (OMP_WAIT_POLICY=PASSIVE), as in docs/benchmarks.md; the load
# average printed first says how busy the machine was.
#
#   bench/dist_bench.sh TAPEGRAD [TOY_STEPS] [LARGER_STEPS]
set -euo pipefail

tapegrad=$1
toy_steps=${2:-40}
larger_steps=${3:-12}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun=(mpirun -np 2 --oversubscribe --allow-run-as-root)

declare -A flags=(
  [toy]="--block-size 64 --d-model 128 --heads 4 --ff 512 --layers 2 --batch-size 32 --steps $toy_steps"
  [larger]="--block-size 128 --d-model 256 --heads 8 --ff 1024 --layers 4 --batch-size 16 --steps $larger_steps")
common=(--task lm --eval-every 0 --eval-batches 1 --log-every 100000 --warmup 0)

ms_per_step() { sed -n 's/^done: .*; \([0-9.]*\) ms\/step.*/\1/p' "$1"; }
wait_ms() { sed -n 's/^rank 0 waited .*(\([0-9.]*\) ms per update.*/\1/p' "$1"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| config | run | ms/update | MPI_Wait ms/update (rank 0) | share waiting |"
echo "|---|---|---:|---:|---:|"
for config in toy larger; do
  read -r -a f <<<"${flags[$config]}"
  OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=2 "$tapegrad" train "${common[@]}" "${f[@]}" --threads 2 --out "$work/one" --overwrite >"$work/one.log"
  echo "| $config | 1 process x 2 threads | $(ms_per_step "$work/one.log") | - | - |"
  OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=1 "${mpirun[@]}" "$tapegrad" train "${common[@]}" "${f[@]}" --threads 1 --out "$work/two" \
    --overwrite >"$work/two.log"
  step=$(ms_per_step "$work/two.log") waited=$(wait_ms "$work/two.log")
  share=$(awk -v w="$waited" -v s="$step" 'BEGIN { printf "%.1f%%", 100 * w / s }')
  echo "| $config | 2 ranks x 1 thread | $step | $waited | $share |"
done
