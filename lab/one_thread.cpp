// The WebAssembly build runs on one thread (lab/serial_openmp/omp.h), so no thread ever waits
// for work: the update's end that core/openmp_wait.cpp marks natively (a source the wasm build
// leaves out, cmake/TapegradWasm.cmake) has nothing to change here.
#include "core/openmp_wait.h"

void tg::openmp_update_finished() {}
