#!/usr/bin/env bash
# lm_grammar.sh — the decoder-only model's bar (issue 48): configs/toy-en-lm.yaml trained for its 5 minutes, then
# ≥ 90 % of greedy continuations of 100 unseen prompts must be sentences of the toy grammar (tools/lm_grammar.cpp).
# ctest's cli.lm_grammar runs the same bar on one thread with no time limit (tests/cli/lm_grammar_test.sh).
# Run from the repository root after a build:
#   tools/lm_grammar.sh [RUN_DIR, default runs/toy-en-lm] [more --set overrides for attnlab train …]
# An existing RUN_DIR is not trained again, only checked.
set -euo pipefail
run=${1:-runs/toy-en-lm}
shift || true
cmake --build build/release --target attnlab_cli lm_grammar > /dev/null
if [ ! -e "$run/config.yaml" ]; then
  build/release/attnlab train --config configs/toy-en-lm.yaml --run "$run" "$@"
fi
build/release/lm_grammar "$run" 90 .
