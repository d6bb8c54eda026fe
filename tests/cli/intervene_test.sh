#!/usr/bin/env bash
# intervene_test.sh — `attnlab translate --intervene` end to end on a tiny run of the reverse task, which a model
# can learn only through cross-attention (target word j is source word n − 1 − j):
#   no intervention changes nothing, bit for bit (a layer swapped for its own weights, too);
#   every cross-attention head switched off drops the exact-match rate on 100 test sentences below 10 %
#     (from above 50 %), and switching them off layer by layer is the same experiment, bit for bit;
#   a masked source word is an unknown word typed in its place; --log-prob agrees with --json;
#   a swapped layer names its checkpoint; every bad SPEC is one clear error naming it;
#   serve's "interventions" answer the command's translation and log-probability, with the head's map all zeros.
# About 20 seconds (the training: 8).
#   usage: intervene_test.sh ATTNLAB_BINARY WORK_DIR
set -u
attnlab=$(realpath "$1") work=$2
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"   # expect_error, expect_ok, check
[ -x /usr/bin/python3 ] || { echo "python3 is not installed: skipping"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0 passes=0

"$attnlab" corpus --task reverse --out data --size 3000 > /dev/null || { echo "FAIL: corpus"; exit 1; }
cat > tiny.yaml <<YAML
data: {train_src: data/train.src, train_tgt: data/train.tgt, valid_src: data/valid.src, valid_tgt: data/valid.tgt,
       test_src: data/test.src, test_tgt: data/test.tgt}
tokenizer: {kind: word}
model: {d_model: 32, heads: 2, d_ff: 64, encoder_layers: 1, decoder_layers: 2, dropout: 0}
train: {max_steps: 1200, batch_tokens: 800, schedule: constant, lr: 0.003, warmup_steps: 2, valid_every: 400,
        valid_samples: 0, checkpoint_every: 400, keep_last: 10, threads: 1, log_every: 400}
YAML
"$attnlab" train --config tiny.yaml --run run > train.log 2>&1 || { echo "FAIL: train"; cat train.log; exit 1; }
head -n 100 data/test.src > test.src
head -n 100 data/test.tgt > test.tgt
exact() { paste -d '\t' "$1" test.tgt | awk -F'\t' '$1 == $2' | wc -l; }

# --- no intervention ≡ the plain translation, bit for bit ---
"$attnlab" translate --run run < test.src > plain.txt
"$attnlab" translate --run run --json < test.src > plain.json
"$attnlab" translate --run run --json --intervene swap:encoder.0=best --intervene swap:decoder.1=best \
  < test.src > same.json 2> same.err
# The JSON's log_prob is the double's shortest round-trip text: equal text, equal bits.
same_fields() {
  /usr/bin/python3 -c '
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
sys.exit(0 if len(a) == 100 and [(x["translation"], x["log_prob"]) for x in a] == [(x["translation"], x["log_prob"]) for x in b] else 1)' "$1" "$2"
}
check "a layer swapped for its own weights translates bit for bit as the plain model" same_fields plain.json same.json
check "--json's translations are the plain output's" \
  diff <(/usr/bin/python3 -c 'import json, sys; [print(json.loads(l)["translation"]) for l in sys.stdin]' < plain.json) plain.txt
check "the swap is said on stderr" grep -q "encoder layer 0 with the weights of best.safetensors" same.err

# --- every cross-attention head switched off destroys the translation ---
"$attnlab" translate --run run --intervene 'ablate:cross:*' < test.src > ablated.txt 2> ablated.err
plain_exact=$(exact plain.txt) ablated_exact=$(exact ablated.txt)
echo "exact match on 100 test sentences: plain $plain_exact %, every cross-attention head switched off $ablated_exact %"
check "the plain model translates most test sentences exactly ($plain_exact %)" test "$plain_exact" -ge 50
check "with every cross-attention head off, fewer than 10 % ($ablated_exact %)" test "$ablated_exact" -lt 10
check "the command says what it switched off" grep -q "all 4 heads of cross-attention switched off" ablated.err
"$attnlab" translate --run run --intervene 'ablate:cross:0.*' --intervene 'ablate:cross:1.0' \
  --intervene 'ablate:cross:*.1' < test.src > by_layer.txt 2> /dev/null
check "the same heads named layer by layer are the same experiment" cmp -s by_layer.txt ablated.txt

# --- a masked word is an unknown word in its place; --log-prob is --json's number ---
sentence=$(head -n 1 test.src)
unknown="zzz ${sentence#* }"                           # the first word replaced by one the vocabulary lacks
"$attnlab" translate --run run --text "$sentence" --json --intervene mask:source:0 > masked.json 2> /dev/null
"$attnlab" translate --run run --text "$unknown" --json > unknown.json
check "mask:source:0 reads the first word as <unk>, as an unknown word is read" \
  /usr/bin/python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(a["translation"] != b["translation"] or a["log_prob"] != b["log_prob"])' masked.json unknown.json
"$attnlab" translate --run run --text "$sentence" --log-prob > log_prob.txt
check "--log-prob prints the translation, a tab and --json's log p to 6 decimals" /usr/bin/python3 -c '
import json, sys
text, number = open(sys.argv[1]).read().rstrip("\n").split("\t")
j = json.loads(open(sys.argv[2]).readline())
sys.exit(not (text == j["translation"] and float(number) <= 0 and abs(float(number) - j["log_prob"]) < 1e-6))' \
  log_prob.txt plain.json
"$attnlab" translate --run run --text "$sentence" --json --intervene swap:decoder.1=400 > swapped.json 2> /dev/null
check "a swap names its checkpoint in the JSON" grep -q 'decoder layer 1 with the weights of step-00000400.safetensors (step 400)' swapped.json

# --- bad SPECs: one clear message each, naming the SPEC ---
bad() { expect_error "$1" "$2" "$attnlab" translate --run run --text "$sentence" --intervene "$3"; }
bad "a layer out of range" "--intervene ablate:cross:2.0: cross-attention has layers 0 … 1 (model.decoder_layers = 2), not 2" ablate:cross:2.0
bad "a head out of range" "--intervene ablate:encoder:0.2: encoder self-attention has heads 0 … 1 (model.heads = 2), not 2" ablate:encoder:0.2
bad "an unknown attention" "--intervene ablate:self:0.0: 'self' is not an attention" ablate:self:0.0
bad "an unknown kind" "--intervene drop:0: 'drop' is not a kind of intervention" drop:0
bad "a layer without a head" "--intervene ablate:cross:1: '1' is not L.H" ablate:cross:1
bad "a head that is not a number" "--intervene ablate:cross:0.x: 'x' is not a head number" ablate:cross:0.x
bad "a negative head" "'-1' is not a head number" ablate:cross:0.-1
bad "a step the run does not keep" "--intervene swap:decoder.0=300: the run has no checkpoint of step 300 (it keeps step-00000400" swap:decoder.0=300
bad "a missing checkpoint file" "--intervene swap:decoder.0=nowhere.safetensors: no checkpoint file 'nowhere.safetensors'" swap:decoder.0=nowhere.safetensors
bad "a checkpoint of another shape" "--intervene swap:decoder.0=data/test.src:" swap:decoder.0=data/test.src
bad "an unknown side" "--intervene swap:middle.0=best: 'middle' is not a side" swap:middle.0=best
bad "a swapped layer out of range" "--intervene swap:encoder.1=best: encoder self-attention has layers 0 … 0" swap:encoder.1=best
bad "a swap without a checkpoint" "--intervene swap:decoder.0: no checkpoint" swap:decoder.0
bad "masking the target" "--intervene mask:target:0: 'target' cannot be masked" mask:target:0
bad "a masked position past the sentence" "mask:source:99: --text has" mask:source:99
printf 'a b c\n\nd e f g h\n' > short.src
expect_error "a masked position past one input line" "mask:source:3: input line 1 has 3 source tokens (positions 0 … 2)" \
  sh -c '"$1" translate --run run --intervene mask:source:3 < short.src' sh "$attnlab"
check "--help says what --intervene does" sh -c '"$1" translate --help | grep -q "ablate:USE:L.H switches off head H of layer L"' sh "$attnlab"

# --- serve: the same intervention answers the same translation, and the switched-off head's map is zeros ---
line=$(sed -n 2p test.src)
"$attnlab" translate --run run --text "$line" --json --intervene ablate:cross:1.0 --intervene mask:source:1 \
  > command.json 2> /dev/null
"$attnlab" translate --run run --text "$line" --json > command_plain.json
if /usr/bin/python3 - "$attnlab" "$line" > serve.txt 2>&1 <<'PY'
import json, socket, subprocess, sys, time, urllib.error, urllib.request
attnlab, line = sys.argv[1], sys.argv[2]
with socket.socket() as s:
    s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
server = subprocess.Popen([attnlab, "serve", "--run", "run", "--port", str(port), "--max-in-flight", "1"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    assert "http://127.0.0.1:%d/" % port in server.stdout.readline()
    def ask(body):
        request = urllib.request.Request("http://127.0.0.1:%d/api/translate" % port, json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())
    status, answer = ask({"text": line, "interventions": ["ablate:cross:1.0", "mask:source:1"]})
    command = json.load(open("command.json"))
    plain = json.load(open("command_plain.json"))
    assert status == 200, answer
    assert answer["target"] == command["translation"], (answer["target"], command["translation"])
    assert abs(answer["intervention"]["log_prob"] - command["log_prob"]) < 1e-3, (answer["intervention"], command)
    assert answer["intervention"]["original"]["translation"] == plain["translation"]
    assert abs(answer["intervention"]["original"]["log_prob"] - plain["log_prob"]) < 1e-3
    assert answer["intervention"]["described"] == command["interventions"]
    cross = [m for m in answer["maps"] if m["name"] == "decoder.layers.1.encoder_attn"][0]
    assert all(w == 0 for row in cross["weights"][0] for w in row), "head 0's map is not all zeros"
    assert all(abs(sum(row) - 1) < 1e-4 for row in cross["weights"][1]), "head 1's rows do not sum to 1"
    assert answer["tokens"]["source_unknown"][1], "the masked word is not shown as read as <unk>"
    status, answer = ask({"text": line, "interventions": ["ablate:cross:7.0"]})
    assert status == 400 and "\"interventions\": ablate:cross:7.0: cross-attention has layers 0 … 1" in answer["error"], answer
    status, answer = ask({"text": line, "interventions": ["swap:decoder.0=/etc/passwd"]})
    assert status == 400 and "is not best, latest, average or a step number" in answer["error"], answer
    status, answer = ask({"text": line, "interventions": "ablate:cross:0.0"})
    assert status == 400 and "must be an array" in answer["error"], answer
    print("serve agrees with the command")
finally:
    server.terminate(); server.wait(timeout=15)
PY
then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: serve's interventions:"; sed 's/^/    /' serve.txt; fi

echo "intervene_test: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
