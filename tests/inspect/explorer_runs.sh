#!/usr/bin/env bash
# explorer_runs.sh — the trained runs the explorer's tests open (a ctest fixture: tests/CMakeLists.txt).
# Five tiny English→French models, seconds of training each, that between them hold every attention kind:
#   dot     scaled_dot everywhere (the views' walk-through and the screenshots)
#   mixed   encoder additive with a window [1, 1], decoder linear, cross simplified
#   other   encoder external (8 slots), decoder sagan, cross scaled_dot
#   local   encoder local_m, decoder local_p (causal), cross local_p
#   hard    encoder hard (argmax), decoder hard with hard_eval: expectation, cross hard (argmax)
# and for each `attnlab attention` of one test sentence: WORK/<run>-page/ (dot also with --beam 3: dot-beam-page/,
# and with --compare local: compare-page/).
#   usage: explorer_runs.sh ATTNLAB_BINARY WORK_DIR
set -eu
attnlab=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$attnlab" corpus --task toy-en-fr --out data --size 600 > /dev/null
train() {   # NAME ATTENTION
  cat > "$1.yaml" <<YAML
data: {train_src: data/train.en, train_tgt: data/train.fr, valid_src: data/valid.en, valid_tgt: data/valid.fr,
       test_src: data/test.en, test_tgt: data/test.fr}
tokenizer: {kind: word}
model: {d_model: 32, heads: 2, d_ff: 64, encoder_layers: 2, decoder_layers: 2, attention: $2}
train: {max_steps: 40, batch_tokens: 400, schedule: constant, lr: 0.003, warmup_steps: 2, valid_every: 40,
        checkpoint_every: 40, threads: 1, log_every: 20, valid_samples: 2}
YAML
  "$attnlab" train --config "$1.yaml" --run "$1" > "$1.train.log" 2>&1 || { cat "$1.train.log"; exit 1; }
}
train dot scaled_dot
train mixed "{encoder: {kind: additive, window: [1, 1]}, decoder: linear, cross: simplified}"
train other "{encoder: {kind: external, memory_slots: 8}, decoder: sagan, cross: scaled_dot}"
train local "{encoder: local_m, decoder: local_p, cross: local_p}"
train hard "{encoder: hard, decoder: {kind: hard, hard_eval: expectation}, cross: hard}"
sentence=$(head -n 1 data/test.en)
for run in dot mixed other local hard; do
  "$attnlab" attention --run "$run" --text "$sentence" --out "$run-page" > /dev/null
done
"$attnlab" attention --run dot --text "$sentence" --beam 3 --out dot-beam-page > /dev/null
"$attnlab" attention --run dot --compare local --text "$sentence" --out compare-page > /dev/null
echo "$sentence" > sentence.txt
echo "explorer runs: dot, mixed, other, local, hard and their pages in $work"
