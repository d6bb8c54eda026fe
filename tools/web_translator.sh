#!/usr/bin/env bash
# web_translator.sh — the toy English→French translator trained in the live page, measured (issue 50): headless
# Chromium opens the live explorer and trains configs/toy-en-fr.yaml with the page's overrides
# (src/inspect/pages/live/training.js) until 95 % exact match on its 200 validation sentences or 15 minutes; then
# downloads the run and checks that the native attnlab's eval and translate give the page's numbers and
# translations; then the native build trains 200 steps of the same config on as many threads as the page had, for
# tokens per second beside the page's. Prints the time to 95 %, every validation, both speeds, and the page's size
# and load time (tests/web/live_translator_browser_test.py --full does the work). Up to about 17 minutes.
#   usage: tools/web_translator.sh [--serve] [WORK_DIR]
#     (none)    the page opened from disk: one thread of WebAssembly (after tools/web.sh, or cmake --build --preset wasm)
#     --serve   the page served cross-origin isolated (tools/serve_isolated.py) with the threaded engine beside it:
#               it trains on every core (needs cmake --preset wasm-threads && cmake --build --preset wasm-threads too)
set -euo pipefail
cd "$(dirname "$0")/.."
serve=()
needed=(build/release/attnlab build/wasm/web/attnlab_web.js)
if [[ ${1:-} == --serve ]]; then
  serve=(--serve build/wasm-threads/web/attnlab_web_threads.js)
  needed+=(build/wasm-threads/web/attnlab_web_threads.js)
  shift
fi
case ${1:-} in -h|--help) sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; -*) echo "web_translator.sh: unknown option '$1' (use --serve)" >&2; exit 2 ;; esac
work=${1:-build/web-translator}
for file in "${needed[@]}"; do
  [[ -e $file ]] || { echo "web_translator.sh: $file is missing: build it first (tools/web.sh)" >&2; exit 1; }
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 tests/web/live_translator_browser_test.py build/release/attnlab build/wasm/web/attnlab_web.js \
  "$work" --full "${serve[@]}"
