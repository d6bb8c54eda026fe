#!/usr/bin/env bash
# web_translator.sh — the toy English→French translator trained in the live page, measured (issue 50): headless
# Chromium opens the live explorer from disk and trains configs/toy-en-fr.yaml with the page's overrides
# (src/inspect/pages/live/training.js) until 95 % exact match on its 200 validation sentences or 15 minutes; then the
# native build trains 200 steps of the same config on one thread, for tokens per second beside the page's. Prints
# the time to 95 %, every validation, both speeds, and the page's size and load time
# (tests/web/live_translator_browser_test.py --full does the work). Up to about 17 minutes.
#   usage: tools/web_translator.sh [WORK_DIR]      (after tools/web.sh, or cmake --build --preset wasm)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-build/web-translator}
for needed in build/release/attnlab build/wasm/web/attnlab_web.js; do
  [[ -e $needed ]] || { echo "web_translator.sh: $needed is missing: build it first (tools/web.sh)" >&2; exit 1; }
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 tests/web/live_translator_browser_test.py build/release/attnlab build/wasm/web/attnlab_web.js \
  "$work" --full
