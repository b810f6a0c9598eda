#!/usr/bin/env bash
# Crash test: kills `tapegrad train` with SIGKILL at random points, again and again, and checks
# that every kill leaves a checkpoint that loads (`tapegrad eval DIR` exits 0) and that
# `tapegrad train --resume DIR` carries on, until the run is complete; then that the run's
# metrics.jsonl (every train and eval line, timings aside) and its final checkpoint's tensor
# bytes equal those of the same run done without interruption.
#
#   tests/crash/kill_resume.sh TAPEGRAD WORK_DIR [KILLS] [SEED]
#
# KILLS (default 20) kills that hit a running process; SEED (default 1) seeds the delays, so a
# failure can be replayed. A completed run before KILLS kills starts another one afresh.
set -euo pipefail

tapegrad=$1
work=$2
kills_wanted=${3:-20}
RANDOM=${4:-1}

source "$(dirname "$0")/run_checks.sh"

run_reference

kills=0
loaded=0  # kills after which a checkpoint was there to load
runs=0
attempts=0
while ((kills < kills_wanted)); do
  runs=$((runs + 1))
  dir=$work/run$runs
  resume=0     # whether a checkpoint exists to resume from
  last_step=0  # the step of the last checkpoint seen
  while :; do  # one attempt: start or resume the run, and kill it unless enough kills were made
    attempts=$((attempts + 1))
    ((attempts <= 10 * kills_wanted)) || fail "no progress after $attempts attempts"
    if ((resume)); then
      "$tapegrad" train --resume "$dir" --threads 1 > "$work/attempt.log" 2>&1 &
    else
      "$tapegrad" train "${train_flags[@]}" --out "$dir" --overwrite > "$work/attempt.log" 2>&1 &
    fi
    pid=$!
    if ((kills < kills_wanted)); then
      delay_ms=$((RANDOM % (run_ms + 1)))
      sleep "$((delay_ms / 1000)).$(printf %03d $((delay_ms % 1000)))"
      kill -KILL "$pid" 2> /dev/null || true
    fi
    status=0
    { wait "$pid"; } 2> /dev/null || status=$?  # (no "Killed" line from the shell)
    ((status == 0)) && break  # the run is complete
    ((status == 128 + 9)) || fail "run $runs failed on its own (exit $status): $(cat "$work/attempt.log")"
    kills=$((kills + 1))
    [[ -f $dir/checkpoint.safetensors ]] || continue  # killed before its first checkpoint
    resume=1
    loaded=$((loaded + 1))
    "$tapegrad" eval "$dir" > "$work/eval.log" 2>&1 ||
      fail "kill $kills (after $delay_ms ms) left a checkpoint that does not load: $(cat "$work/eval.log")"
    step=$(sed -n 's/^eval: .*, step \([0-9]*\))$/\1/p' "$work/eval.log")
    ((step >= last_step)) || fail "kill $kills: the checkpoint went back from step $last_step to $step"
    last_step=$step
  done
  diff <(metrics_without_timings "$reference") <(metrics_without_timings "$dir") > "$work/metrics.diff" ||
    fail "run $runs: metrics.jsonl differs from the uninterrupted run's: $(head -5 "$work/metrics.diff")"
  [[ $(tensor_bytes "$reference") == $(tensor_bytes "$dir") ]] ||
    fail "run $runs: the final checkpoint's tensors differ from the uninterrupted run's"
done
echo "kill_resume: $kills kills in $runs runs ($attempts starts); after $loaded of them a checkpoint was there," \
     "and it loaded; every run ended equal to the uninterrupted one"
