#!/usr/bin/env bash
# fuzz/run.sh SECONDS [BUILD_DIR]
# Runs every fuzz target built in BUILD_DIR/fuzz (default build/fuzz, the fuzz preset's; build/asan works too) for
# SECONDS each, starting from a copy of its seed corpus (fuzz/corpus/<target>/) and with its
# dictionary (fuzz/<target>.dict) when there is one. Builds nothing and changes nothing in the
# repository. Prints the executions and findings per target; exits 1 on any finding (the
# reproducers are kept in the temporary directory it names).
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
found=0
for binary in "${targets[@]}"; do
  name=$(basename "$binary" _fuzz)
  mkdir -p "$work/$name/corpus" "$work/$name/findings"
  [ -d "$repo/fuzz/corpus/$name" ] && cp -r "$repo/fuzz/corpus/$name/." "$work/$name/corpus/"
  dict=()
  [ -f "$repo/fuzz/$name.dict" ] && dict=("-dict=$repo/fuzz/$name.dict")
  status=0
  (cd "$work/$name" && "$binary" "${dict[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 \
     -timeout=10 -print_final_stats=1 -artifact_prefix="$work/$name/findings/" corpus) >"$work/$name/log" 2>&1 ||
    status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name/log" | tail -1)
  findings=$(find "$work/$name/findings" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ "$findings" -ne 0 ]; then
    found=1
    echo "$name: ${runs:-?} executions, FINDING (exit $status): see $work/$name/log and $work/$name/findings/"
    grep -m1 -E "ERROR: |runtime error|==ERROR|deadly signal|Timeout|out-of-memory" "$work/$name/log" || true
  else
    echo "$name: ${runs:-?} executions, no findings"
  fi
done
if [ "$found" -eq 0 ]; then rm -rf "$work"; fi
exit "$found"
