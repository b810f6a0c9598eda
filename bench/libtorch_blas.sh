# shellcheck shell=bash
# libtorch_blas.sh: sourced by the side-by-side scripts. require_openblas BINARY stops the run
# when BINARY (a libtorch benchmark) would run its matrix products in Debian's reference BLAS:
# libtorch-dev pulls in libblas3 (netlib, about 10x slower than OpenBLAS) unless an optimised
# BLAS provides libblas.so.3, and comparing against that would handicap libtorch.
require_openblas() {
  local blas kernels
  blas=$(ldd "$1" | awk '$1 == "libblas.so.3" { print $3 }')
  blas=$(readlink -f "${blas:-none}")
  case "$blas" in
    *openblas*)
      openblas_own_core=$(unset OPENBLAS_CORETYPE; openblas_core "$blas")  # for choose_openblas_coretype
      kernels=$openblas_own_core
      [[ -n "${OPENBLAS_CORETYPE:-}" ]] &&
        kernels="$(openblas_core "$blas"), as OPENBLAS_CORETYPE asks; its own choice: $openblas_own_core"
      echo "libtorch's BLAS: $blas (its kernels: $kernels)"
      ;;
    *)
      echo "$(basename "$1") would run its matrix products in $blas, not OpenBLAS: a handicapped" \
        "libtorch. Install OpenBLAS (apt-get install libopenblas0-pthread) and rerun." >&2
      exit 1
      ;;
  esac
}

# The core whose kernels the OpenBLAS library $1 runs on this CPU (OPENBLAS_CORETYPE obeyed).
openblas_core() {
  python3 -c 'import ctypes, sys
name = ctypes.CDLL(sys.argv[1]).openblas_get_corename
name.restype = ctypes.c_char_p
print(name().decode())' "$1"
}

# choose_openblas_coretype COMMAND...: OpenBLAS picks its kernels by the CPU unless
# OPENBLAS_CORETYPE names a core (a machine may set it for all its programs: OPENBLAS_CORETYPE=Haswell
# runs AVX2 kernels on a CPU with AVX-512). Where it is set, this times COMMAND (a short libtorch or
# PyTorch run whose matrix products go through OpenBLAS; its output is dropped) 3 times with it and
# 3 times without it, alternately, and unsets it when OpenBLAS's own choice was faster by the
# median, so that libtorch runs at its best. Call it after require_openblas.
choose_openblas_coretype() {
  [[ -n "${OPENBLAS_CORETYPE:-}" ]] || return 0
  local given=$OPENBLAS_CORETYPE own=$openblas_own_core given_ms="" own_ms=""
  for _ in 1 2 3; do
    given_ms+=" $(wall_ms "$@")"
    own_ms+=" $(unset OPENBLAS_CORETYPE; wall_ms "$@")"
  done
  if python3 -c 'import statistics, sys
given, own = ([float(t) for t in s.split()] for s in sys.argv[1:])
sys.exit(statistics.median(own) >= statistics.median(given))' "$given_ms" "$own_ms"; then
    unset OPENBLAS_CORETYPE
  fi
  echo "OpenBLAS's kernels: OPENBLAS_CORETYPE=$given (ms:$given_ms) or its own choice, $own" \
    "(ms:$own_ms): libtorch runs with ${OPENBLAS_CORETYPE:-$own}"
}

# wall_ms COMMAND...: the milliseconds COMMAND took, its output dropped.
wall_ms() {
  local start
  start=$(date +%s%N)
  "$@" > /dev/null
  echo $((($(date +%s%N) - start) / 1000000))
}
