#!/usr/bin/env bash
# test.sh — install dependencies, build, and run every test through ctest.
#
#   tools/test.sh              release build (build/release)
#   tools/test.sh --sanitize   the same suite under AddressSanitizer + UndefinedBehaviorSanitizer (build/sanitize)
#
# Both also build the fuzz preset (build/fuzz), whose targets ctest runs briefly; tools/fuzz.sh runs them long.
# Prints ctest's summary and exits non-zero if anything fails to build or any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
case "${1:-}" in
  "") ;;
  --sanitize) preset=sanitize ;;
  -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "test.sh: unknown option '$1' (use --sanitize or nothing)" >&2; exit 2 ;;
esac

tools/install-deps.sh
# ccache (when installed) may reuse objects compiled in another clone of the repository: paths under this folder
# are hashed relative to it. (Objects with debug information still hash their folder, so they are never mixed up.)
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
# The fuzz targets (tests/fuzz, clang): ctest runs each for a few thousand executions (fuzz.* tests).
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)"
