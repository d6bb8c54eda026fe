// <malloc.h>, for the browser build (cmake/browser.cmake): Emscripten's C library has no malloc_trim, glibc's
// "give the heap's free pages back to the system", which src/tensor/storage.cpp calls after a large free. A
// WebAssembly memory can only grow, never give pages back, so there is nothing to trim: 0, as glibc answers when
// it released nothing.
#pragma once
#include_next <malloc.h>
#include <stddef.h>

inline int malloc_trim(size_t) { return 0; }
