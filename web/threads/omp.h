// omp.h — the OpenMP functions the chapters (and Eigen) call, for the threaded browser build (cmake/browser.cmake,
// preset wasm-threads), where it stands where <omp.h> is looked for. Emscripten ships no OpenMP runtime: clang
// compiles each `#pragma omp` into calls of LLVM's OpenMP runtime (__kmpc_fork_call, …), and
// web/threads/openmp_runtime.cpp answers them — and these — over pthreads, which Emscripten runs as Web Workers
// sharing one SharedArrayBuffer.
//
//   omp_get_thread_num()    this thread's number in its team: 0 … team − 1 (0 outside a parallel region)
//   omp_get_num_threads()   the size of the current team (1 outside a parallel region)
//   omp_get_max_threads()   how many threads the next parallel region gets (omp_set_num_threads, else the cores)
//   omp_in_parallel()       1 inside a parallel region run by more than one thread, else 0
//   omp_set_num_threads(n)  the team size of the parallel regions that follow, process-wide
#pragma once

extern "C" {
int omp_get_thread_num();
int omp_get_num_threads();
int omp_get_max_threads();
int omp_in_parallel();
void omp_set_num_threads(int threads);
}
