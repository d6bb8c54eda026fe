# browser.cmake — the browser build (`cmake --preset wasm`, Emscripten): what it contains, and what it leaves out.
#
# This is the one place that says it. CMakeLists.txt includes this file instead of looking for the native
# libraries when the compiler is Emscripten's; the chapters' sources are the same files as in the native build.
#
# It contains every chapter (util … gpt: the tensor, the autograd engine, nn, attention, the model, data's
# tokenizers, decoding, one training step, the run folder, the recording of attention maps, the language model),
# compiled to WebAssembly with 128-bit SIMD, and web/, its entry point (web/CMakeLists.txt: the engine the page calls).
# It leaves out, by the build, not by #ifdef in the chapters:
#   threads       in the one-thread engine (preset wasm): WebAssembly threads need a SharedArrayBuffer, which a
#                 browser gives only to a cross-origin-isolated page, never to one opened from disk. That build
#                 compiles without -fopenmp and puts a team of one on the include path (web/one_thread/omp.h).
#                 The threaded engine (preset wasm-threads, ATTNLAB_BROWSER_THREADS, build/wasm-threads) is the
#                 same chapters with -pthread (Emscripten runs each thread as a Web Worker) and -fopenmp: clang
#                 compiles each `#pragma omp` into calls of LLVM's OpenMP runtime, which Emscripten does not ship,
#                 so web/threads/openmp_runtime.cpp provides the calls the chapters use, over pthreads. A page
#                 served cross-origin isolated (tools/serve_isolated.py) trains with it; the losses are the same
#                 bits as one thread's (src/tensor/parallel.h; tests/web/live_threads_browser_test.py).
#   MPI           data parallelism: src/distributed/data_parallel_single.cpp, one process (ATTNLAB_MPI off)
#   OpenBLAS      src/tensor/product/blas_product_absent.cpp (ATTNLAB_BLAS off): model.gemm auto takes simd128 (below)
#   sentencepiece the bpe and unigram tokenizers: src/data/tokenizers/sentencepiece_absent.cpp says so; word and
#                 char work
#   the command   src/cli (and with it serve's HTTP server, libmicrohttpd), the tests, the tools, the exercises
# and brings along, from the Debian packages' own files:
#   Eigen, nlohmann-json   header-only: their headers
#   spdlog, fmt            their headers, header-only (no compiled library); the log goes to the console
#   yaml-cpp               its headers (libyaml-cpp-dev) and the sources of the same release, from Debian's source
#                          package, which tools/install-deps.sh unpacks into build/deps/yaml-cpp (Debian ships the
#                          library compiled for the machine only, and a page must read a run's config.yaml with
#                          the very parser the native build uses)
# SIMD: WebAssembly's simd128 (-msimd128). The matrix products run on a kernel written for it,
# src/tensor/product/simd128_product.cpp (model.gemm: simd128, what auto takes here; its code is under
# `#if defined(__wasm_simd128__)`, so the native build, whose glob also picks the file up, gets its stand-in): the
# packed GEMM's plan and bits with tiles that fit the browser's registers (1.6 times the packed GEMM's speed here,
# whose tiles are Eigen's packets, below). Everything else is Eigen's element-wise work and the chapters' own
# loops. Eigen 3.4 has no WebAssembly packets, but Emscripten translates x86's SSE intrinsics into simd128
# (-msse4.1: Emscripten's xmmintrin.h … smmintrin.h, one simd128 instruction for nearly every intrinsic Eigen uses),
# so Eigen's hand-written SSE code runs here with 4-float packets, as on an x86 machine without AVX (vector_unit(),
# src/tensor/vector_unit.cpp, names it "WebAssembly SIMD (Eigen's SSE code), 4 floats a vector"). Two things had to
# be arranged for it:
#   -fgnuc-version=5.30   Debian's Eigen 3.4.0 holds x86 inline assembly, which no WebAssembly compiler accepts, in
#                         two places chosen by the GCC version the compiler claims: pmin/pmax for GCC older than 6.3
#                         (arch/SSE/PacketMath.h: 10 × major + minor < 63) and a register-spilling guard for GCC 6
#                         and newer (products/GeneralBlockPanelKernel.h). clang claims GCC 4.2 and so gets the
#                         first, 6.3 the second; 5.30 (5 × 10 + 30 = 80, yet major 5) gets neither.
#   web/compat/mmintrin.h Eigen includes MMX's header, which Emscripten does not have (no 64-bit vectors); Eigen
#                         uses nothing from it.
# What it gained, measured in the page: docs/guide/explorer-and-serve.md ("Eigen's SSE code in the page").
# No fused multiply-add: simd128 has none, and relaxed-simd's (-mrelaxed-simd)
# is emitted by Emscripten 3.1.6's clang 14 with its prototype opcode, which V8 now refuses ("invalid simd opcode").
# Exceptions: WebAssembly's own (-fwasm-exceptions): attnlab::Error reaches the page as a message, and calls
# cost nothing until something throws (Emscripten's older JavaScript exceptions wrap every call that may throw).

set(ATTNLAB_MPI OFF CACHE BOOL "" FORCE)
set(ATTNLAB_BLAS OFF CACHE BOOL "" FORCE)
set(ATTNLAB_ARCH generic CACHE STRING "" FORCE)      # no -march: the instruction set is WebAssembly's
add_compile_options(-msimd128 -msse4.1 -fgnuc-version=5.30 -fwasm-exceptions)
add_link_options(-fwasm-exceptions)
# What Emscripten 3.1.6's C and C++ libraries lack and the chapters use — std::bit_cast, floating-point to_chars
# and from_chars, malloc_trim — comes from web/compat/, first on the include path (each header says what it adds).
include_directories(BEFORE SYSTEM ${PROJECT_SOURCE_DIR}/web/compat)
# The register tiles of the packed product (src/tensor/product/small_matmul.cpp) are sized for the registers the machine
# code has; Eigen knows no WebAssembly and guesses 8. The browser's compiler maps simd128 values onto the CPU's
# vector registers: 16 on x86-64 (SSE, AVX2), 32 on ARM64 (NEON).
add_compile_definitions(EIGEN_ARCH_DEFAULT_NUMBER_OF_REGISTERS=16)

# Emscripten's compiler looks in its own sysroot, never in /usr/include (whose C library is the machine's): the
# header-only libraries' folders are linked into one folder of the build, which alone is added.
set(ATTNLAB_BROWSER_INCLUDE ${PROJECT_BINARY_DIR}/browser-include)
file(MAKE_DIRECTORY ${ATTNLAB_BROWSER_INCLUDE})
foreach(library nlohmann spdlog fmt yaml-cpp)
  if(NOT EXISTS /usr/include/${library})
    message(FATAL_ERROR "attnlab (browser build): /usr/include/${library} is missing: run tools/install-deps.sh")
  endif()
  file(CREATE_LINK /usr/include/${library} ${ATTNLAB_BROWSER_INCLUDE}/${library} SYMBOLIC)
endforeach()
if(NOT EXISTS /usr/include/eigen3/Eigen/Core)
  message(FATAL_ERROR "attnlab (browser build): Eigen is missing (/usr/include/eigen3): run tools/install-deps.sh")
endif()

# The targets the chapters link, under the names the native build's packages give them.
add_library(Eigen3::Eigen INTERFACE IMPORTED)
target_include_directories(Eigen3::Eigen INTERFACE /usr/include/eigen3)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${ATTNLAB_BROWSER_INCLUDE})
add_library(spdlog::spdlog INTERFACE IMPORTED)
target_include_directories(spdlog::spdlog INTERFACE ${ATTNLAB_BROWSER_INCLUDE})
target_compile_definitions(spdlog::spdlog INTERFACE SPDLOG_FMT_EXTERNAL FMT_HEADER_ONLY)
set(yaml_cpp_source ${PROJECT_SOURCE_DIR}/build/deps/yaml-cpp)
if(NOT EXISTS ${yaml_cpp_source}/src/parse.cpp)
  message(FATAL_ERROR "attnlab (browser build): yaml-cpp's source is missing (${yaml_cpp_source}): run "
                      "tools/install-deps.sh, which takes it from Debian's source package")
endif()
file(GLOB_RECURSE yaml_cpp_sources ${yaml_cpp_source}/src/*.cpp)
add_library(yaml-cpp STATIC ${yaml_cpp_sources})
target_include_directories(yaml-cpp PUBLIC ${ATTNLAB_BROWSER_INCLUDE} PRIVATE ${yaml_cpp_source}/src)
add_library(PkgConfig::SENTENCEPIECE INTERFACE IMPORTED)   # nothing: sentencepiece_absent.cpp stands in
add_library(OpenMP::OpenMP_CXX INTERFACE IMPORTED)
option(ATTNLAB_BROWSER_THREADS "The threaded engine (preset wasm-threads): -pthread, OpenMP over web/threads/" OFF)
if(ATTNLAB_BROWSER_THREADS)                                # the threaded engine (above): real `#pragma omp` teams
  add_compile_options(-pthread)                            # every object, or wasm-ld refuses the shared memory
  add_link_options(-pthread)
  target_compile_options(yaml-cpp PRIVATE -pthread)        # made above, before these options
  add_library(attnlab_openmp STATIC ${PROJECT_SOURCE_DIR}/web/threads/openmp_runtime.cpp)
  target_include_directories(OpenMP::OpenMP_CXX INTERFACE ${PROJECT_SOURCE_DIR}/web/threads)
  target_compile_options(OpenMP::OpenMP_CXX INTERFACE -fopenmp)   # compile only: the runtime is ours
  target_link_libraries(OpenMP::OpenMP_CXX INTERFACE attnlab_openmp)
else()                                                     # a team of one (above)
  target_include_directories(OpenMP::OpenMP_CXX INTERFACE ${PROJECT_SOURCE_DIR}/web/one_thread)
  target_compile_options(OpenMP::OpenMP_CXX INTERFACE -Wno-unknown-pragmas)   # the ignored `#pragma omp` lines
endif()
