// <mmintrin.h>, for the browser build (cmake/browser.cmake): Eigen's SSE code includes MMX's header among SSE's,
// and Emscripten, which translates SSE's intrinsics into WebAssembly's simd128, has no MMX (64-bit vectors) to
// translate. Eigen uses nothing from it, so the header is empty; SSE's own headers come from Emscripten.
#pragma once
