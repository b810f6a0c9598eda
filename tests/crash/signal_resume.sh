#!/usr/bin/env bash
# Signal test: `tapegrad train` stopped by SIGTERM, SIGHUP and SIGINT at random points must finish
# its step, write its checkpoint, say how to continue and exit 128 + the signal; resumed after
# each stop, the run must end with the uninterrupted run's metrics and tensor bytes (a run that
# ends before its signal comes is started afresh, until all six have stopped one). Then two
# runs into one directory: the second is refused at once, naming the first's pid, and the first,
# stopped by SIGTERM with --eval-every 0 (no checkpoint before the end), leaves a checkpoint that
# resumes. A signal during the setup (reading the data) stops a run before training begins, with
# nothing written: a fresh run's directory is accepted again without --overwrite, a resumed run is
# unchanged. And a SIGHUP with the output gone (a pipe nobody reads, or closed descriptors, as
# when the terminal closes) still writes the checkpoint and exits 129.
#
#   tests/crash/signal_resume.sh TAPEGRAD WORK_DIR [SEED]
#
# SEED (default 1) seeds the delays, so that a failure can be replayed.
set -euo pipefail

tapegrad=$1
work=$2
RANDOM=${3:-1}

source "$(dirname "$0")/run_checks.sh"
signals=(TERM HUP INT TERM HUP INT)
declare -A signal_number=([HUP]=1 [INT]=2 [TERM]=15)

# The step of the checkpoint in run directory $1, as `tapegrad eval` reports it.
checkpoint_step() {
  "$tapegrad" eval "$1" > "$work/eval.log" 2>&1 || fail "the checkpoint of $1 does not load: $(cat "$work/eval.log")"
  sed -n 's/^eval: .*(task [^,]*, step \([0-9]*\)[,)].*/\1/p' "$work/eval.log"
}

run_reference

# Waits until the run in the background ($1) has printed its run directory (training starts next),
# or has ended.
wait_for_training() {
  for _ in $(seq 500); do
    grep -q "^  run directory" "$work/attempt.log" && return
    kill -0 "$1" 2> /dev/null || return 0  # (a status of 1 would end the script: set -e)
    sleep 0.01
  done
}

dir=$work/run
stops=0
attempts=0
while ((stops < ${#signals[@]})); do
  ((++attempts <= 40)) || fail "only $stops of ${#signals[@]} signals came during training in 40 runs"
  signal=${signals[stops]}
  if [[ -f $dir/checkpoint.safetensors ]]; then
    "$tapegrad" train --resume "$dir" --threads 1 > "$work/attempt.log" 2>&1 &
  else
    "$tapegrad" train "${train_flags[@]}" --out "$dir" --overwrite > "$work/attempt.log" 2>&1 &
  fi
  pid=$!
  wait_for_training "$pid"
  delay_ms=$((RANDOM % (run_ms / 4 + 1)))
  sleep "$((delay_ms / 1000)).$(printf %03d $((delay_ms % 1000)))"
  kill -s "$signal" "$pid" 2> /dev/null || true
  status=0
  { wait "$pid"; } 2> /dev/null || status=$?  # (no "Terminated" line from the shell)
  if ((status == 0)); then  # the run ended before the signal came: the next one starts afresh
    rm -rf "$dir"
    continue
  fi
  ((status == 128 + signal_number[$signal])) ||
    fail "SIG$signal after $delay_ms ms: exit $status, not $((128 + signal_number[$signal])): $(cat "$work/attempt.log")"
  # Before training began the run stops with nothing written (tested below).
  step=$(sed -n "s|^interrupted at step \([0-9]*\)/60 by SIG$signal; .*|\1|p" "$work/attempt.log")
  [[ -n $step ]] || continue
  expected="interrupted at step $step/60 by SIG$signal; checkpoint $dir/checkpoint.safetensors written. Continue"
  expected+=" with: tapegrad train --resume $dir"
  grep -qxF "$expected" "$work/attempt.log" ||
    fail "SIG$signal: the message does not say where the run stopped and how to continue: $(cat "$work/attempt.log")"
  [[ $(checkpoint_step "$dir") == "$step" ]] || fail "SIG$signal: the checkpoint is not at step $step"
  stops=$((stops + 1))
  echo "signal_resume: SIG$signal $delay_ms ms into training: stopped at step $step, exit $status"
done
if [[ -f $dir/checkpoint.safetensors ]] && (($(checkpoint_step "$dir") < 60)); then
  "$tapegrad" train --resume "$dir" --threads 1 > "$work/attempt.log" 2>&1 ||
    fail "the last resume failed: $(cat "$work/attempt.log")"
fi
diff <(metrics_without_timings "$reference") <(metrics_without_timings "$dir") > "$work/metrics.diff" ||
  fail "metrics.jsonl differs from the uninterrupted run's: $(head -5 "$work/metrics.diff")"
[[ $(tensor_bytes "$reference") == $(tensor_bytes "$dir") ]] ||
  fail "the final checkpoint's tensors differ from the uninterrupted run's"
echo "signal_resume: $stops stops during training, each at a checkpoint that loads; the resumed run ended equal" \
     "to the uninterrupted one"

# Two runs into one directory. The first trains for long with no checkpoint before its end.
locked=$work/locked
long_flags=(--task reverse --d-model 16 --heads 2 --ff 32 --layers 1 --steps 100000 --warmup 2 --batch-size 16
            --eval-every 0 --val-examples 32 --log-every 1 --threads 1)
"$tapegrad" train "${long_flags[@]}" --out "$locked" > "$work/first.log" 2>&1 &
first=$!
for _ in $(seq 200); do
  grep -q '"type":"train"' "$locked/metrics.jsonl" 2> /dev/null && break
  sleep 0.05
done
grep -q '"type":"train"' "$locked/metrics.jsonl" || fail "the first run did not start training in 10 s"
status=0
"$tapegrad" train "${long_flags[@]}" --out "$locked" --overwrite > "$work/second.log" 2>&1 || status=$?
((status == 1)) || fail "a second run into a directory in use: exit $status, not 1: $(cat "$work/second.log")"
grep -q "run directory $locked is in use by process $first (lock file $locked/.tapegrad.lock)" "$work/second.log" ||
  fail "the second run's refusal does not name the first's pid $first: $(cat "$work/second.log")"
kill -TERM "$first"
status=0
{ wait "$first"; } 2> /dev/null || status=$?
((status == 143)) || fail "SIGTERM with --eval-every 0: exit $status, not 143: $(cat "$work/first.log")"
step=$(sed -n 's|^interrupted at step \([0-9]*\)/100000 by SIGTERM.*|\1|p' "$work/first.log")
[[ -n $step && $(checkpoint_step "$locked") == "$step" ]] ||
  fail "SIGTERM with --eval-every 0 left no checkpoint at the step it names: $(tail -2 "$work/first.log")"
"$tapegrad" train --resume "$locked" --steps +2 --threads 1 > "$work/resume.log" 2>&1 ||
  fail "the run stopped by SIGTERM does not resume: $(cat "$work/resume.log")"
[[ $(checkpoint_step "$locked") == $((step + 2)) ]] || fail "the resumed run did not reach step $((step + 2))"
echo "signal_resume: a second run into a directory in use was refused naming pid $first; SIGTERM with" \
     "--eval-every 0 stopped the first at step $step with a checkpoint, which resumed"

# A signal during the setup. Reading, hashing and encoding 8 MB of text takes a few tenths of a
# second, long enough to send the signal meanwhile: once the lock file holds the run's pid, it
# has its directory and reads its data.
head -c 8000000 < <(yes "the quick brown fox jumps over the lazy dog") > "$work/text.txt"
setup=$work/setup
lm_flags=(--task lm --data "$work/text.txt" --block-size 8 --d-model 16 --heads 2 --ff 32 --layers 1 --warmup 1
          --eval-batches 1 --threads 1)
signal_during_setup() {  # signal_during_setup SIGNAL TRAIN_ARGS...: the exit status in $status
  local signal=$1
  shift
  "$tapegrad" train "$@" > "$work/setup.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1000); do
    [[ $(cat "$setup/.tapegrad.lock" 2> /dev/null) == "$pid" ]] && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.01
  done
  kill -s "$signal" "$pid" 2> /dev/null || true
  status=0
  { wait "$pid"; } 2> /dev/null || status=$?
}
signal_during_setup TERM "${lm_flags[@]}" --steps 2 --out "$setup"
((status == 143)) || fail "SIGTERM during the setup: exit $status, not 143: $(cat "$work/setup.log")"
grep -qxF "tapegrad train: stopped by SIGTERM before training began; nothing written" "$work/setup.log" ||
  fail "SIGTERM during the setup: $(cat "$work/setup.log")"
[[ $(ls -A "$setup") == .tapegrad.lock ]] || fail "SIGTERM during the setup left more than the lock file: $(ls -A "$setup")"
"$tapegrad" train "${lm_flags[@]}" --steps 2 --out "$setup" > "$work/setup.log" 2>&1 ||
  fail "a run into the directory of one stopped during its setup: $(cat "$work/setup.log")"
before=$(cat "$setup/checkpoint.safetensors" "$setup/metrics.jsonl" | cksum)
signal_during_setup HUP --resume "$setup" --steps +2
((status == 129)) || fail "SIGHUP during a resumed run's setup: exit $status, not 129: $(cat "$work/setup.log")"
expected="tapegrad train: stopped by SIGHUP before training began; the run in $setup is unchanged (continue it"
expected+=" with: tapegrad train --resume $setup)"
grep -qxF "$expected" "$work/setup.log" ||
  fail "SIGHUP during a resumed run's setup: $(cat "$work/setup.log")"
[[ $(cat "$setup/checkpoint.safetensors" "$setup/metrics.jsonl" | cksum) == "$before" ]] ||
  fail "SIGHUP during a resumed run's setup changed the run"
echo "signal_resume: a signal during the setup stopped a fresh run with nothing written and a resumed one unchanged"

# SIGHUP with the output gone: stdout and stderr lead to a pipe that nobody reads (a write fails
# with EPIPE, or SIGPIPE), or are closed.
mkfifo "$work/fifo"
exec {reader}<> "$work/fifo"
exec {unread}> "$work/fifo"
exec {reader}<&-
for output in unread closed; do
  gone=$work/gone-$output
  if [[ $output == unread ]]; then
    "$tapegrad" train "${long_flags[@]}" --out "$gone" >&"$unread" 2>&"$unread" &
  else
    "$tapegrad" train "${long_flags[@]}" --out "$gone" >&- 2>&- &
  fi
  pid=$!
  for _ in $(seq 200); do
    grep -q '"type":"train"' "$gone/metrics.jsonl" 2> /dev/null && break
    sleep 0.05
  done
  kill -HUP "$pid" 2> /dev/null || echo "signal_resume: the run with the output $output ended before SIGHUP" >&2
  status=0
  { wait "$pid"; } 2> /dev/null || status=$?
  ((status == 129)) || fail "SIGHUP with the output $output: exit $status, not 129"
  [[ $(cat "$gone/.tapegrad.lock") == "$pid" ]] || fail "SIGHUP with the output $output: the lock file holds more"
  step=$(checkpoint_step "$gone")
  "$tapegrad" train --resume "$gone" --steps +1 --threads 1 > "$work/resume.log" 2>&1 ||
    fail "the run stopped by SIGHUP with the output $output does not resume: $(cat "$work/resume.log")"
  [[ $(checkpoint_step "$gone") == $((step + 1)) ]] || fail "the resumed run did not reach step $((step + 1))"
done
exec {unread}>&-
echo "signal_resume: SIGHUP with the output unread or closed wrote the checkpoint and exited 129"
