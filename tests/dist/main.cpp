// The runner of tests/dist/, started by mpirun on 2 ranks (tests/CMakeLists.txt): MPI for the
// whole run, then doctest. Every test case runs on every rank, making the same collective calls;
// rank 0 prints the usual report, the other ranks only their failures. mpirun exits non-zero if
// any rank fails. A case that stops on one rank before a collective leaves the other rank
// waiting in it: CTest's timeout (tests/CMakeLists.txt) then fails the test.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "dist/dist.h"

int main(int argc, char** argv) {
  tg::dist::Session mpi;
  doctest::Context context(argc, argv);
  if (tg::dist::rank() != 0) context.setOption("minimal", true);
  return context.run();
}
