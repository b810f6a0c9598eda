#!/usr/bin/env bash
# fuzz/run.sh SECONDS [BUILD_DIR]
# Runs every fuzz target built in BUILD_DIR/fuzz (default build/fuzz, the fuzz preset's;
# build/asan works too) for SECONDS each, as many at once as there are cores, starting from a
# copy of its seed corpus (fuzz/corpus/<target>/) and with its dictionary (fuzz/<target>.dict)
# when there is one. Builds nothing and changes nothing in the repository. Prints the
# executions and findings per target; exits 1 on any finding (the reproducers are kept in the
# temporary directory it names).
set -euo pipefail

seconds=${1:?usage: fuzz/run.sh SECONDS [BUILD_DIR]}
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${2:-$repo/build/fuzz}")
targets=("$build"/fuzz/*_fuzz)
if [ ! -x "${targets[0]}" ]; then
  echo "run.sh: no fuzz targets in $build/fuzz (build them: cmake --workflow --preset fuzz)" >&2
  exit 2
fi

work=$(mktemp -d /tmp/tapegrad_fuzz.XXXXXX)

# fuzz_one NAME BINARY: one campaign; writes its summary line to $work/NAME/result and, for a
# finding, the first line of the report after it.
fuzz_one() {
  local name=$1 binary=$2 status=0 dict=() runs findings
  mkdir -p "$work/$name/corpus" "$work/$name/findings"
  [ -d "$repo/fuzz/corpus/$name" ] && cp -r "$repo/fuzz/corpus/$name/." "$work/$name/corpus/"
  [ -f "$repo/fuzz/$name.dict" ] && dict=("-dict=$repo/fuzz/$name.dict")
  (cd "$work/$name" && "$binary" "${dict[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 \
     -timeout=10 -print_final_stats=1 -artifact_prefix="$work/$name/findings/" corpus) >"$work/$name/log" 2>&1 ||
    status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name/log" | tail -1)
  findings=$(find "$work/$name/findings" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$findings" -ne 0 ]; then
    echo "$name: ${runs:-?} executions, FINDING (exit $status): see $work/$name/log and $work/$name/findings/"
    grep -m1 -E "ERROR: |runtime error|==ERROR|deadly signal|Timeout|out-of-memory" "$work/$name/log" || true
  else
    echo "$name: ${runs:-?} executions, no findings"
  fi >"$work/$name/result"
}

# One campaign per core at a time (each is single-threaded), so the whole run takes about
# SECONDS x targets / cores.
parallel=$(nproc)
for binary in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
  fuzz_one "$(basename "$binary" _fuzz)" "$binary" &
done
wait
found=0
for binary in "${targets[@]}"; do
  name=$(basename "$binary" _fuzz)
  cat "$work/$name/result"
  grep -q FINDING "$work/$name/result" && found=1
done
if [ "$found" -eq 0 ]; then rm -rf "$work"; fi
exit "$found"
