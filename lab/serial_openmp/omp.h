#pragma once
// The OpenMP calls tapegrad's kernels make, for the WebAssembly build (lab/), which has no
// OpenMP: one thread, so each parallel region runs whole on the calling thread (its pragmas
// are ignored) and asks for one part.
inline int omp_get_max_threads() { return 1; }
inline int omp_get_num_threads() { return 1; }
inline int omp_get_thread_num() { return 0; }
