#!/usr/bin/env bash
# test.sh — install what is missing, build what the tests need, and run every test through ctest.
#
#   tools/test.sh              release build (build/release)
#   tools/test.sh --sanitize   the suite under AddressSanitizer + UndefinedBehaviorSanitizer (build/sanitize, clang),
#                              but for the exercises and the tests labelled source, browser, fuzz and training
#   tools/test.sh --arch x86-64-v3   the library's unit suites built for AVX2 + FMA (build/release-v3): what the
#                              instruction set changes (labels: tests/CMakeLists.txt, at its end)
#   tools/test.sh --fuzz       first build the fuzz targets (build/fuzz, clang + libFuzzer): ctest then runs each
#                              for a few thousand executions (.ci/run does; without it those tests skip, saying so)
#   tools/test.sh --wasm       first build the browser build (build/wasm, Emscripten) and its threaded engine
#                              (build/wasm-threads): the live explorer's browser tests (browser.live_explorer,
#                              browser.live_training, browser.live_threads, …) then run (.ci/run does; without it
#                              they skip, saying so). About 6 minutes more on 2 cores without ccache's help, and as
#                              much again for the threaded engine (every chapter compiled a second time, -pthread).
#
# Each phase prints how long it took. Prints ctest's summary and exits non-zero if anything fails to build or any
# test fails. tools/fuzz.sh runs the fuzz targets long.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
fuzz=""
wasm=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sanitize) preset=sanitize ;;
    --arch)
      [ "${2:-}" = x86-64-v3 ] || { echo "test.sh: --arch takes x86-64-v3 (the release-v3 preset)" >&2; exit 2; }
      preset=release-v3; shift ;;
    --fuzz) fuzz=1 ;;
    --wasm) wasm=1 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown option '$1' (use --sanitize, --arch x86-64-v3, --fuzz, --wasm or nothing)" >&2; exit 2 ;;
  esac
  shift
done

started=$(date +%s)
phase_started=$started
# phase NAME: the time since the last phase, on one line ("test.sh: build 312 s").
phase() {
  local now; now=$(date +%s)
  echo "test.sh: $1 $((now - phase_started)) s"
  phase_started=$now
}

tools/install-deps.sh
phase "install (dependencies)"
# ccache (when installed) may reuse objects compiled in another clone of the repository: paths under this folder
# are hashed relative to it. (Objects with debug information still hash their folder, so they are never mixed up.)
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
# …and may cache files compiled with the precompiled headers (CMakeLists.txt, ATTNLAB_PCH) only when told that
# the header's macros and time stamps do not change what they compile to.
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
phase "build ($preset)"
if [ -n "$fuzz" ]; then
  # The fuzz targets (tests/fuzz, clang): ctest runs each for a few thousand executions (fuzz.* tests).
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$(nproc)"
  phase "build (fuzz targets)"
fi
if [ -n "$wasm" ]; then
  # The browser build (cmake/browser.cmake): its engine, build/wasm/web/attnlab_web.js, is what the live tests load.
  cmake --preset wasm >/dev/null
  cmake --build --preset wasm -j "$(nproc)"
  phase "build (wasm: the browser build)"
  cmake --preset wasm-threads >/dev/null              # the threaded engine (web/threads/): browser.live_threads
  cmake --build --preset wasm-threads -j "$(nproc)"
  phase "build (wasm-threads: the threaded engine)"
fi
status=0
ctest --preset "$preset" -j "$(nproc)" || status=$?
phase "tests (ctest)"
echo "test.sh: $(( $(date +%s) - started )) s in all"
exit "$status"
