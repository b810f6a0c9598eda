# libtorch_blas.sh: sourced by the side-by-side scripts. require_openblas BINARY stops the run
# when BINARY (a libtorch benchmark) would run its matrix products in Debian's reference BLAS:
# libtorch-dev pulls in libblas3 (netlib, about 10x slower than OpenBLAS) unless an optimised
# BLAS provides libblas.so.3, and comparing against that would handicap libtorch.
require_openblas() {
  local blas
  blas=$(ldd "$1" | awk '$1 == "libblas.so.3" { print $3 }')
  blas=$(readlink -f "${blas:-none}")
  case "$blas" in
    *openblas*) echo "libtorch's BLAS: $blas" ;;
    *)
      echo "$(basename "$1") would run its matrix products in $blas, not OpenBLAS: a handicapped" \
        "libtorch. Install OpenBLAS (apt-get install libopenblas0-pthread) and rerun." >&2
      exit 1
      ;;
  esac
}
