#!/usr/bin/env bash
# Run THERE: on a machine with an NVIDIA GPU, nvcc, CMake, ninja, g++ and python3 (+ PyTorch
# with CUDA), but no package registry. First run scripts/gpu-prepare.sh on a Debian machine
# and send .gpu-debs/ along. From the repository root:
#
#   OUT=/some/dir bash scripts/gpu-check.sh
#
# Steps, each with its own time limit inside a total budget (GPU_CHECK_BUDGET seconds, 520 by
# default), each one's exit code recorded; a failing step never stops the later ones (only a
# failed build skips what needs the binaries):
#   env        nvidia-smi, compiler and tool versions
#   deps       dpkg -x the .debs into .gpu-deps/ (fmt used header-only: no foreign shared library)
#   configure  -DTAPEGRAD_CUDA=ON, sm_90 machine code + compute_90 PTX, CMAKE_PREFIX_PATH=.gpu-deps
#   build      the tests, the tapegrad program and the GPU benchmark
#   gpu_tests  every test case whose name says CUDA or GPU (doctest filters ignore case); if any
#              fails, again one process per case with CUDA_LAUNCH_BLOCKING=1 (ctest)
#   train      tapegrad train --device cuda, then --device cpu, on the default task
#   bench      bench/gpu_bench, then bench/pytorch_train_step.py, side by side
#   suite      the whole test suite in one process
# GPU_CHECK_SKIP_BUILD=1 GPU_CHECK_BUILD=<dir> skips deps, configure and build and uses <dir>.
# $OUT/report.md is rewritten after every step (so it holds what was done so far, also when the
# call is cut short); the raw logs lie beside it (7 files in all).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
OUT=${OUT:-$ROOT/gpu-check-out}
BUDGET=${GPU_CHECK_BUDGET:-520}
JOBS=${GPU_CHECK_JOBS:-$(nproc)}
BUILD=${GPU_CHECK_BUILD:-$ROOT/build/gpu}
DEPS=$ROOT/.gpu-deps
mkdir -p "$OUT"
START=$SECONDS
ROWS=()
BUILT=0

# step NAME LIMIT LOG COMMAND: runs COMMAND (a string, through bash) with LIMIT seconds or what
# is left of the budget, appends its output to $OUT/LOG, records a row for the report.
step() {
  local name=$1 limit=$2 log=$OUT/$3 cmd=$4
  local left=$((BUDGET - (SECONDS - START)))
  if ((left < 15)); then
    ROWS+=("| $name | skipped: budget spent | 0 | $3 |")
    echo "== $name: skipped, the budget (${BUDGET}s) is spent" | tee -a "$log"
    write_report
    return 99
  fi
  ((limit > left)) && limit=$left
  echo "== $name (limit ${limit}s): $cmd" | tee -a "$log"
  local t0=$SECONDS rc
  timeout -k 10 "$limit" bash -c "$cmd" >>"$log" 2>&1 </dev/null
  rc=$?
  local what=$rc
  ((rc == 124 || rc == 137)) && what="$rc (timed out after ${limit}s)"
  ((rc == 77)) && what="77 (GPU cases skipped: NO GPU)"
  echo "== $name: exit $what after $((SECONDS - t0))s" | tee -a "$log"
  ROWS+=("| $name | $what | $((SECONDS - t0)) | $3 |")
  write_report
  return $rc
}

skip() {  # skip NAME LOG WHY
  ROWS+=("| $1 | skipped: $3 | 0 | $2 |")
  echo "== $1: skipped: $3" | tee -a "$OUT/$2"
  write_report
}

# The lines of a log that matter, for the report (none if the log is missing).
grab() { [ -f "$OUT/$1" ] && grep -E "$2" "$OUT/$1" | tail -n "${3:-20}"; }

write_report() {
  {
    echo "# tapegrad GPU check"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (+ local changes)'), $((SECONDS - START))s of a ${BUDGET}s budget"
    echo
    echo "| step | exit | seconds | log |"
    echo "| --- | --- | --- | --- |"
    printf '%s\n' "${ROWS[@]}"
    echo
    if grep -qE 'error|FAILED' "$OUT/build.log" 2>/dev/null; then
      echo "## Build errors (first lines)"
      echo '```'
      grep -E -m 15 'error|FAILED' "$OUT/build.log"
      echo '```'
    fi
    echo "## GPU"
    echo '```'
    grab env.log 'NVIDIA-SMI|Driver Version|H100|H200|NVIDIA [A-Z]|No devices|failed|not found|Cuda compilation|^g\+\+|^cmake version|^torch' 30
    echo '```'
    echo "## Tests"
    echo '```'
    grab gpu_tests.log '^\[doctest\] (test cases|assertions|Status)|GPU cases skipped|ERROR|FAILED|TEST CASE:|Error|tests passed|\*\*\*Failed' 50
    grab suite.log '^\[doctest\] (test cases|assertions|Status)|GPU cases skipped' 6
    echo '```'
    echo "## tapegrad train, default task (reverse), cuda vs cpu"
    echo '```'
    grab train.log '^== |^done:|^validation|Error|error' 20
    echo '```'
    echo "## Benchmark (ms; ratio > 1: tapegrad slower)"
    echo '```'
    grab bench.log '^train |^side by side|^what|tokens/s: |^(toy|large) |no GPU|Error|error' 60
    echo '```'
  } >"$OUT/report.md"
}

write_report

# ---- env ---------------------------------------------------------------------------------
step env 30 env.log 'nvidia-smi; nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv;
  command -v nvcc || ls /usr/local/cuda/bin/nvcc; (nvcc --version || /usr/local/cuda/bin/nvcc --version) | tail -2;
  g++ --version | head -1; cmake --version | head -1; echo "ninja $(ninja --version)"; nproc; free -g | head -2;
  grep PRETTY_NAME /etc/os-release;
  python3 -c "import torch; print(\"torch\", torch.__version__, \"cuda\", torch.version.cuda, torch.cuda.is_available())"'

# ---- deps: the .debs, unpacked (dpkg -x, or by hand where there is no dpkg) ------------------
unpack_deps() {
  set -e
  ls .gpu-debs/*.deb >/dev/null || { echo "no .gpu-debs/*.deb: run scripts/gpu-prepare.sh first and carry .gpu-debs"; exit 1; }
  rm -rf "$DEPS"
  mkdir -p "$DEPS/root" "$DEPS/fmt/lib/cmake/fmt"
  for deb in .gpu-debs/*.deb; do
    if command -v dpkg >/dev/null; then
      dpkg -x "$deb" "$DEPS/root"
    else  # a .deb is an ar archive ("!<arch>\n", 60-byte member headers) holding data.tar.*
      python3 -c '
import io, sys, tarfile
data, pos = open(sys.argv[1], "rb").read(), 8
while pos < len(data):
    name, size = data[pos:pos + 16].decode().strip().rstrip("/"), int(data[pos + 48:pos + 58])
    if name.startswith("data.tar"):
        tarfile.open(fileobj=io.BytesIO(data[pos + 60:pos + 60 + size])).extractall(sys.argv[2])
    pos += 60 + size + (size & 1)' "$deb" "$DEPS/root"
    fi
  done
  # fmt header-only, through a package config of our own: no libfmt.so built for another
  # system is linked or loaded.
  rm -rf "$DEPS/root/usr/lib/x86_64-linux-gnu/cmake/fmt"
  cat >"$DEPS/fmt/lib/cmake/fmt/fmt-config.cmake" <<CONFIG
if(NOT TARGET fmt::fmt)
  add_library(fmt::fmt INTERFACE IMPORTED)
  set_target_properties(fmt::fmt PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$DEPS/root/usr/include"
                        INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
endif()
set(fmt_VERSION 9.1.0)
CONFIG
  find "$DEPS" -name "*onfig.cmake"
}
export -f unpack_deps
export DEPS
PREBUILT=${GPU_CHECK_SKIP_BUILD:-0}  # 1: use $BUILD as it is (to rerun the later steps)
if [ "$PREBUILT" = 1 ]; then
  skip deps env.log "GPU_CHECK_SKIP_BUILD=1"
else
  step deps 60 env.log unpack_deps
fi
DEPS_RC=$?

# Found through the environment too, so that the install_and_consume test's own configure
# (which passes only its scratch prefix) finds fmt, doctest and nlohmann_json as well.
export CMAKE_PREFIX_PATH="$DEPS/fmt:$DEPS/root/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export CUDACXX=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export CCACHE_DISABLE=1

# ---- configure and build -------------------------------------------------------------------
if [ "$PREBUILT" = 1 ]; then
  skip build build.log "GPU_CHECK_SKIP_BUILD=1, using $BUILD as built"
  BUILT=1
elif ((DEPS_RC == 0)); then
  step configure 90 build.log "cmake -S . -B '$BUILD' -G Ninja -DCMAKE_BUILD_TYPE=Release -DTAPEGRAD_CUDA=ON \
    '-DCMAKE_CUDA_ARCHITECTURES=90-real;90-virtual' -DTAPEGRAD_WERROR=OFF -DTAPEGRAD_BUILD_EXAMPLES=OFF \
    -DCMAKE_CUDA_COMPILER='$CUDACXX' -DCMAKE_CUDA_FLAGS=-allow-unsupported-compiler" &&
    step build 300 build.log "set -o pipefail; cmake --build '$BUILD' -j $JOBS --target tapegrad_tests tapegrad_program \
      tapegrad_gpu_bench | { grep -v '^\[[0-9]*/[0-9]*\] Building' || true; }" && BUILT=1
else
  skip configure build.log "the deps step failed"
fi
if ((BUILT == 0)); then
  for s in gpu_tests:gpu_tests.log train:train.log bench:bench.log suite:suite.log; do skip "${s%%:*}" "${s##*:}" "no build"; done
  echo "gpu-check: the build failed; see $OUT/build.log and $OUT/report.md"
  exit 1
fi
TESTS=$BUILD/tests/tapegrad_tests
PROG=$BUILD/bin/tapegrad
BENCH=$BUILD/bench/tapegrad_gpu_bench

# ---- the GPU test cases first, then training, the benchmark, the whole suite ----------------
step gpu_tests 120 gpu_tests.log "'$TESTS' --test-case='*cuda*,*gpu*'"
GPU_TESTS_RC=$?
((GPU_TESTS_RC != 0 && GPU_TESTS_RC != 77)) &&
  # One bad kernel leaves a sticky CUDA error that fails every later case of the process: run
  # the cases again one process each, every launch synchronous, so each failure names its own op.
  step gpu_tests_isolated 120 gpu_tests.log "cd '$BUILD' && CUDA_LAUNCH_BLOCKING=1 ctest -R '(CUDA|GPU|cuda)' \
    -j 8 --timeout 60 --output-on-failure"
TRAIN_DIR=$(mktemp -d)
step train 100 train.log "'$PROG' train --device cuda --out '$TRAIN_DIR/cuda'"
step train_cpu 120 train.log "'$PROG' train --device cpu --out '$TRAIN_DIR/cpu'"
step bench 120 bench.log "set -o pipefail; '$BENCH' --device cuda | tee '$TRAIN_DIR/tapegrad_bench.txt'"
step pytorch 90 bench.log "PYTHONUNBUFFERED=1 python3 bench/pytorch_train_step.py --device cuda --tapegrad '$TRAIN_DIR/tapegrad_bench.txt'"
step suite 150 suite.log "'$TESTS'"
rm -rf "$TRAIN_DIR"
write_report
echo "gpu-check: done in $((SECONDS - START))s; report $OUT/report.md"
cat "$OUT/report.md"
