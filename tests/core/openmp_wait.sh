#!/usr/bin/env bash
# The OpenMP wait policy a tapegrad program starts with (core/openmp_wait.cpp), as libgomp itself
# reports it (OMP_DISPLAY_ENV=verbose): spin 300 rounds then sleep when the environment sets
# nothing; the environment's choice when it sets OMP_WAIT_POLICY or GOMP_SPINCOUNT.
#   openmp_wait.sh TAPEGRAD_PROGRAM
set -euo pipefail
tapegrad=$1

# The spin count libgomp took, with the given variables and no other wait setting.
spin_count() {
  env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose "$@" "$tapegrad" --help 2>&1 >/dev/null |
    sed -n "s/^ *GOMP_SPINCOUNT = '\([0-9]*\)'.*/\1/p"
}

expect() {
  local want=$1; shift
  local got
  got=$(spin_count "$@")
  if [[ "$got" != "$want" ]]; then
    echo "openmp_wait: with '${*:-no wait setting}' libgomp spins '$got' rounds, expected '$want'" >&2
    exit 1
  fi
  echo "with '${*:-no wait setting}': GOMP_SPINCOUNT = $got"
}

expect 300
expect 77 GOMP_SPINCOUNT=77
expect 0 OMP_WAIT_POLICY=passive
expect 30000000000 OMP_WAIT_POLICY=active
