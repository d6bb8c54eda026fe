#!/usr/bin/env bash
# explorer_runs.sh — the trained runs the explorer's tests open (a ctest fixture: tests/CMakeLists.txt).
# Five tiny English→French models, seconds of training each, that between them hold every attention kind:
#   dot     scaled_dot everywhere (the views' walk-through and the screenshots)
#   mixed   encoder additive with a window [1, 1], decoder linear, cross simplified
#   other   encoder external (8 slots), decoder sagan, cross scaled_dot
#   local   encoder local_m, decoder local_p (causal), cross local_p
#   hard    encoder hard (argmax), decoder hard with hard_eval: expectation, cross hard (argmax)
# and for each `attnlab attention` of one test sentence: WORK/<run>-page/ (dot also with --beam 3: dot-beam-page/,
# and with --compare local: compare-page/). And a cloze reader (attention over attention, data/cloze/ of the
# repository, 20 steps): cloze/ and cloze-page/ for one question (cloze-question.txt).
#   usage: explorer_runs.sh ATTNLAB_BINARY WORK_DIR
set -eu
attnlab=$1 work=$2
repository=$(cd "$(dirname "$0")/../.." && pwd)
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
cat > cloze.yaml <<YAML
data: {train_src: $repository/data/cloze/train.question, train_tgt: $repository/data/cloze/train.answer,
       valid_src: $repository/data/cloze/valid.question, valid_tgt: $repository/data/cloze/valid.answer, max_len: 60}
tokenizer: {kind: word, shared: true}
model: {task: cloze, reader: aoa, d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1}
train: {max_steps: 20, batch_tokens: 800, schedule: constant, lr: 0.003, warmup_steps: 2, valid_every: 20,
        checkpoint_every: 20, threads: 1, log_every: 10}
YAML
"$attnlab" train --config cloze.yaml --run cloze > cloze.train.log 2>&1 || { cat cloze.train.log; exit 1; }
question="the girl follows the horse . the horse hides the zorblax . @query the zorblax is hidden by @placeholder ."
echo "$question" > cloze-question.txt
"$attnlab" attention --run cloze --text "$question" --out cloze-page > /dev/null
echo "explorer runs: dot, mixed, other, local, hard and their pages in $work"
