#!/usr/bin/env bash
# `mpirun -np 2 tapegrad train` with rank 1 killed (SIGKILL) after the run's first checkpoint:
# the whole job must end within seconds, mpirun naming the rank and the signal; the checkpoint
# must load (`tapegrad eval`), and the run resumes from it on 2 ranks and finishes. First, an
# error on the ranks (a batch too small to split) must end the job naming the rank.
#
#   tests/dist/rank_killed.sh TAPEGRAD WORK_DIR mpirun -np 2 ...
set -euo pipefail
source "$(dirname "$0")/rank_pid.sh"

tapegrad=$1
work=$2
shift 2
mpirun=("$@")
run=$work/run
flags=(--task copy --max-len 4 --d-model 16 --heads 2 --ff 32 --layers 1 --eval-every 20
       --eval-batches 1 --val-examples 16 --log-every 1000 --threads 1)

fail() {
  echo "rank_killed: $*" >&2
  for f in "$work"/*.out "$work"/*.err; do echo "--- $f" >&2; cat "$f" >&2; done
  exit 1
}

rm -rf "$work"
# Each job keeps its Open MPI session directory in a folder of its own (TMPDIR): a killed job's
# shared /tmp/ompi.<host>.<uid> is still being removed while the next job creates it.
mkdir -p "$work"/tmp-{small,first,resume}
if TMPDIR="$work/tmp-small" "${mpirun[@]}" "$tapegrad" train "${flags[@]}" --batch-size 1 --out "$work/small" >"$work/small.out" 2>"$work/small.err"; then
  fail "a --batch-size of 1 on 2 ranks was not refused"
fi
grep -qE "error on rank [01] of 2: train: --batch-size 1 is split across 2 ranks" "$work/small.err" ||
  fail "the refused batch size does not say so, naming the rank"
TMPDIR="$work/tmp-first" "${mpirun[@]}" "$tapegrad" train "${flags[@]}" --batch-size 8 --warmup 10 --steps 20000 --out "$run" >"$work/first.out" 2>"$work/first.err" &
job=$!
for _ in $(seq 600); do
  [ -f "$run/checkpoint.safetensors" ] && break
  sleep 0.1
done
[ -f "$run/checkpoint.safetensors" ] || fail "no checkpoint after 60 s"

# Rank 1: the child of mpirun whose environment says so.
rank1=$(rank_pid "$job" 1)
[ -n "$rank1" ] || fail "rank 1 not found among mpirun's children ($(pgrep -P "$job" | tr '\n' ' '))"
kill -9 "$rank1"
killed_at=$SECONDS
status=0
wait "$job" || status=$?
elapsed=$((SECONDS - killed_at))
[ "$status" -ne 0 ] || fail "mpirun exited 0 after rank 1 was killed"
[ "$elapsed" -le 10 ] || fail "the job took ${elapsed} s to end after rank 1 was killed"
grep -q "rank 1 .*signal 9" "$work/first.err" || fail "mpirun's message does not name rank 1 and signal 9"
echo "rank_killed: rank 1 killed; the job ended after ${elapsed} s (mpirun exit status $status):"
grep "rank 1 .*signal 9" "$work/first.err"

"$tapegrad" eval "$run" >"$work/eval.out" 2>"$work/eval.err" || fail "the checkpoint does not load"
TMPDIR="$work/tmp-resume" "${mpirun[@]}" "$tapegrad" train --resume "$run" --steps +20 --threads 1 >"$work/resume.out" 2>"$work/resume.err" ||
  fail "the resumed run failed"
grep -q "resumed at step" "$work/resume.out" || fail "the resumed run does not say where it resumed"
grep -q "^done: 20 steps" "$work/resume.out" || fail "the resumed run did not do its 20 steps"
echo "rank_killed: the checkpoint loads, and the run resumed from it:"
grep "resumed at step\|^done:\|^validation" "$work/resume.out"
