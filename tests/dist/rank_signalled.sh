#!/usr/bin/env bash
# `mpirun -np 2 tapegrad train` with SIGTERM sent to rank 1 alone, during training and before any
# checkpoint (--eval-every 0): the ranks agree after every step whether to stop, so both stop
# after the same step, rank 0 writes the checkpoint and says how to continue, every rank exits
# 143 (128 + SIGTERM) with no error and no MPI_Abort, and the run resumes from the checkpoint on
# 2 ranks.
#
#   tests/dist/rank_signalled.sh TAPEGRAD WORK_DIR mpirun -np 2 ...
set -euo pipefail
source "$(dirname "$0")/rank_pid.sh"

tapegrad=$1
work=$2
shift 2
mpirun=("$@")
run=$work/run
flags=(--task copy --max-len 4 --d-model 16 --heads 2 --ff 32 --layers 1 --eval-every 0 --eval-batches 1
       --val-examples 16 --log-every 1 --threads 1 --batch-size 8 --warmup 10)

fail() {
  echo "rank_signalled: $*" >&2
  for f in "$work"/*.out "$work"/*.err; do echo "--- $f" >&2; cat "$f" >&2; done
  exit 1
}

rm -rf "$work"
mkdir -p "$work"
"${mpirun[@]}" "$tapegrad" train "${flags[@]}" --steps 20000 --out "$run" >"$work/first.out" 2>"$work/first.err" &
job=$!
# The steps in metrics.jsonl so far.
steps_logged() {
  local n
  n=$(grep -c '"type":"train"' "$run/metrics.jsonl" 2>/dev/null) || true
  echo "${n:-0}"
}
for _ in $(seq 600); do
  [ "$(steps_logged)" -ge 5 ] && break
  sleep 0.1
done
[ "$(steps_logged)" -ge 5 ] || fail "not training after 60 s"

# Rank 1: the child of mpirun whose environment says so.
rank1=$(rank_pid "$job" 1)
[ -n "$rank1" ] || fail "rank 1 not found among mpirun's children ($(pgrep -P "$job" | tr '\n' ' '))"
kill -TERM "$rank1"
signalled_at=$SECONDS
status=0
wait "$job" || status=$?
elapsed=$((SECONDS - signalled_at))
[ "$status" -eq 143 ] || fail "mpirun exited $status, not 143 (128 + SIGTERM), after rank 1 got SIGTERM"
[ "$elapsed" -le 10 ] || fail "the job took ${elapsed} s to end after rank 1 got SIGTERM"
if grep -q "error on rank\|MPI_Abort\|signal 15" "$work/first.err"; then fail "a rank failed or was killed"; fi
step=$(sed -n 's|^interrupted at step \([0-9]*\)/20000 by SIGTERM; checkpoint .* written\. Continue with: tapegrad train --resume .*|\1|p' "$work/first.out")
[ -n "$step" ] || fail "rank 0 does not say where the job stopped and how to continue"
"$tapegrad" eval "$run" >"$work/eval.out" 2>"$work/eval.err" || fail "the checkpoint does not load"
grep -q "^eval: .*, step $step[,)]" "$work/eval.out" || fail "the checkpoint is not at step $step, where rank 0 said it stopped"
echo "rank_signalled: rank 1 got SIGTERM; both ranks stopped after step $step within ${elapsed} s (mpirun exit 143)"

"${mpirun[@]}" "$tapegrad" train --resume "$run" --steps +5 --threads 1 >"$work/resume.out" 2>"$work/resume.err" ||
  fail "the resumed run failed"
grep -q "resumed at step $step" "$work/resume.out" || fail "the run did not resume at step $step"
grep -q "^done: 5 steps" "$work/resume.out" || fail "the resumed run did not do its 5 steps"
echo "rank_signalled: the checkpoint loads, and the run resumed from it on 2 ranks"
