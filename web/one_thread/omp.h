// omp.h — OpenMP's team of one: the stand-in the browser build puts where <omp.h> is looked for
// (cmake/browser.cmake).
//
// A page cannot start threads the way a program does: WebAssembly threads need a SharedArrayBuffer, and a browser
// gives one only to a page served with cross-origin isolation headers — never to a page opened from disk. So the
// browser build compiles without -fopenmp: every `#pragma omp` is then ignored (each parallel loop runs all its
// iterations on the calling thread, as the chapters' own one-thread path does), and the few OpenMP functions the
// chapters call answer as a team of one thread would. The same role as src/distributed/data_parallel_single.cpp
// for MPI: the chapters do not know which one they got.
#pragma once

inline int omp_get_thread_num() { return 0; }      // the only thread is thread 0
inline int omp_get_num_threads() { return 1; }
inline int omp_get_max_threads() { return 1; }
inline int omp_in_parallel() { return 0; }
inline void omp_set_num_threads(int) {}             // asking for more threads changes nothing: there is one
