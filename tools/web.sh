#!/usr/bin/env bash
# web.sh — attnlab in the browser: build the browser version and write the live explorer, one page that translates,
# draws the explorer's views and trains the copy task with no server and no install (docs/guide/explorer-and-serve.md).
#
#   tools/web.sh                    the page with the newest toy demo run (runs/toy-en-fr-*, tools/demo.sh) bundled,
#                                   or with no run when there is none (it then asks for a run folder's files)
#   tools/web.sh --run RUN          the page with RUN bundled
#   tools/web.sh --out DIR          where index.html goes (default build/wasm/live)
#   tools/web.sh --serve [PORT]     also build the threaded engine (cmake --preset wasm-threads), put it beside the
#                                   page, and serve DIR at http://127.0.0.1:PORT/ (default 8000) with the headers that
#                                   make the page cross-origin isolated (tools/serve_isolated.py): it then trains on
#                                   every core instead of one
#
# Steps: install what is missing (Emscripten among it), build the browser build (cmake --preset wasm: the engine,
# build/wasm/web/attnlab_web.js), build the native attnlab (it writes the page), then
# `attnlab attention --live --run RUN --out DIR`. Open DIR/index.html in Chromium or Firefox, straight from disk
# (training then runs on one thread, and the page says why), or use --serve.
set -euo pipefail
cd "$(dirname "$0")/.."

run="" out=build/wasm/live port=""
while [ $# -gt 0 ]; do
  case "$1" in
    --run) run=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --serve) port=8000; shift; if [[ "${1:-}" =~ ^[0-9]+$ ]]; then port=$1; shift; fi ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "web.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$run" ]; then
  run=$(ls -d runs/toy-en-fr-* 2>/dev/null | sort | tail -n 1 || true)
fi

tools/install-deps.sh
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
cmake --preset wasm >/dev/null
cmake --build --preset wasm -j "$(nproc)"
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target attnlab_cli
build/release/attnlab attention --live --engine build/wasm/web/attnlab_web.js --out "$out" ${run:+--run "$run"}
if [ -n "$port" ]; then
  cmake --preset wasm-threads >/dev/null
  cmake --build --preset wasm-threads -j "$(nproc)"
  cp build/wasm-threads/web/attnlab_web_threads.{js,wasm,worker.js} "$out"/
  exec tools/serve_isolated.py "$out" --port "$port"
fi
