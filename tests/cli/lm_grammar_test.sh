#!/usr/bin/env bash
# lm_grammar_test.sh — issue 48's bar for the decoder-only model, in the suite: configs/toy-en-lm.yaml as shipped,
# all 1,500 steps on one thread (no time limit, so the model is the same on a fast or a busy machine: about 20 s of
# training on a 2-core EPYC, 30 s at load 3), then ≥ 90 of 100 greedy continuations of unseen prompts must be sentences of the
# toy grammar (tools/lm_grammar.cpp and its recognizer). It can fail: the same config stopped at step 400 writes 89.
#   usage: lm_grammar_test.sh ATTNLAB_BINARY LM_GRAMMAR_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
attnlab=$1 lm_grammar=$2 source_dir=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
cd "$source_dir"   # the config's data paths are relative to the project's root
start=$SECONDS
"$attnlab" train --config configs/toy-en-lm.yaml --run "$work/run" --set train.threads=1 \
  --set train.max_minutes=0 > "$work/train.log" 2>&1 || { cat "$work/train.log"; exit 1; }
grep "validation at step 1500" "$work/train.log"
echo "trained in $((SECONDS - start)) s"
"$lm_grammar" "$work/run" 90 "$source_dir"
