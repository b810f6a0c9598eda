# What the crash tests (kill_resume.sh, signal_resume.sh) share; sourced, after `tapegrad` and
# `work` are set.

# A tiny model that checkpoints every 3 steps (--eval-every). Every start runs on one thread: the
# thread count is not part of the checkpoint, and runs on different thread counts differ
# (docs/design.md, "Determinism").
train_flags=(--task reverse --d-model 16 --heads 2 --ff 32 --layers 1 --steps 60 --batch-size 16
             --eval-every 3 --val-examples 32 --log-every 1000 --threads 1 --seed 3)

fail() {
  echo "$(basename "$0" .sh): $*" >&2
  exit 1
}

# The metrics lines with their timings ("ms", always the last field) removed.
metrics_without_timings() { sed 's/,"ms":[^,}]*}$/}/' "$1/metrics.jsonl"; }

# The tensor bytes of a safetensors file: what follows the 8-byte header length and the header
# (the header holds the run's config, whose --out differs between the two runs).
tensor_bytes() {
  local header
  header=$(od -An -tu8 -N8 "$1/checkpoint.safetensors" | tr -d ' ')
  tail -c +$((9 + header)) "$1/checkpoint.safetensors" | cksum
}

# Makes $work afresh and the uninterrupted run in $reference, the one to compare with; $run_ms is
# how long it took.
run_reference() {
  rm -rf "$work"
  mkdir -p "$work"
  reference=$work/reference
  local start
  start=$(date +%s%N)
  "$tapegrad" train "${train_flags[@]}" --out "$reference" > "$work/reference.log" 2>&1 ||
    fail "the uninterrupted run failed: $(cat "$work/reference.log")"
  run_ms=$((($(date +%s%N) - start) / 1000000))
  echo "$(basename "$0" .sh): the uninterrupted run takes $run_ms ms"
}
