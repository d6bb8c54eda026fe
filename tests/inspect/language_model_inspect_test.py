"""language_model_inspect_test.py — looking inside a decoder-only language model (model.task: language_model):
`attnlab attention`, `attnlab report` and `attnlab serve` on a tiny model trained here in about a second.

Checked: attention --json on a prompt continued greedily has "task": "language_model", no source, one
decoder_self map per layer whose weights are [heads][T][T] over the whole text (T = the prompt's tokens + the
continuation's), causal (0 above the diagonal) with rows summing to 1, the same continuation `attnlab generate
--temperature 0` writes, and one decoding step per position whose "chosen" is the text's next token; --out writes
the explorer and SVGs; --terminal prints the heads; the translation-only options and `attnlab align` are refused
in one line naming why; report writes a page of continuations and the text's attention. Under serve: the page
states which run is a language model and the sampling fields' limits; POST /api/translate answers what the
command answers for the same prompt and settings (a seeded draw too); every out-of-range field, a translation
field, /api/film and /api/contrast are refused with a 400 naming the field.
    usage: language_model_inspect_test.py ATTNLAB SOURCE_DIR WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, free_port, stop  # noqa: E402

attnlab, source_dir, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
checks = Checklist("language model inspect")
check = checks.check
LAYERS, HEADS = 2, 2


def run(*arguments):
    return subprocess.run([attnlab, *arguments], cwd=work, capture_output=True, text=True)


def refused(what, needle, *arguments):
    result = run(*arguments)
    lines = result.stderr.strip().splitlines()
    check(result.returncode == 1 and len(lines) == 1 and needle in lines[0],
          "%s is refused in one line naming why (%r): exit %d, %r" % (what, needle, result.returncode, result.stderr))


def check_picture(data, how, continuation):
    check(data.get("task") == "language_model" and data["tokens"]["source"] == [], how + ": a text, no source")
    text = data["tokens"]["target_output"]
    g = data["generation"]
    check(g["continuation"] == continuation, "%s: the continuation is generate's: %r, %r" %
          (how, g["continuation"], continuation))
    check(len(text) == g["prompt_tokens"] + len(continuation.split()), how + ": the text is the prompt and the continuation")
    maps = data["maps"]
    check([m["type"] for m in maps] == ["decoder_self"] * LAYERS, how + ": one masked self-attention map a layer")
    T = len(text)
    for m in maps:
        w = m["weights"]
        check(len(w) == HEADS and all(len(h) == T and all(len(r) == T for r in h) for h in w),
              "%s: %s is [heads][T][T], T = %d" % (how, m["name"], T))
        causal = all(w[h][i][j] == 0 for h in range(HEADS) for i in range(T) for j in range(i + 1, T))
        sums = all(abs(sum(w[h][i]) - 1) < 1e-4 for h in range(HEADS) for i in range(T))
        check(causal and sums, "%s: %s is causal and its rows sum to 1" % (how, m["name"]))
        check("q" in m["neuron"] and "scores" in m["neuron"] and m["value_norms"] is not None,
              how + ": the neuron view's stages and the value norms are there")
    reads = data["tokens"]["target_input"]
    check(reads[:1] == ["<s>"] and reads[1:] == text[:-1], how + ": position t reads token t − 1, <s> first: %r" % reads[:4])
    steps = data["decoding"]["steps"]
    check([s["chosen"] for s in steps] == text and [s["reads"] for s in steps] == data["tokens"]["target_input"],
          how + ": a decoding step per position, reading token t − 1 and choosing token t")
    rollout = data["flow"]["rollout"]["decoder_target"]
    check(len(rollout) == T and all(abs(sum(r) - 1) < 1e-4 for r in rollout), how + ": the rollout over the text")


def commands():
    config = os.path.join(work, "lm.yaml")
    with open(config, "w") as f:
        f.write("data: {train_text: %s/data/toy-en-fr/valid.en, valid_text: %s/data/toy-en-fr/test.en, max_len: 32}\n"
                "tokenizer: {kind: word}\nmodel: {task: language_model, d_model: 32, heads: %d, d_ff: 64, "
                "decoder_layers: %d, tie_output: true}\ntrain: {threads: 1, batch_tokens: 512, max_steps: 40, "
                "lr: 0.003, schedule: constant, valid_every: 20}\n" % (source_dir, source_dir, HEADS, LAYERS))
    check(run("train", "--config", config, "--run", "lm").returncode == 0, "a tiny language model trains")
    generated = run("generate", "--run", "lm", "--prompt", "the old", "--temperature", "0", "--max-tokens", "6").stdout
    continuation = generated.strip()[len("the old"):].strip()
    shown = run("attention", "--run", "lm", "--text", "the old", "--max-tokens", "6", "--json", "--out", "page")
    check(shown.returncode == 0, "attention on a language model: %r" % shown.stderr)
    data = json.loads(shown.stdout or "{}")
    if data:
        check_picture(data, "attention --json", continuation)
    files = os.listdir(os.path.join(work, "page")) if os.path.isdir(os.path.join(work, "page")) else []
    check("index.html" in files and "decoder_self-layer1-head1.svg" in files and not any("cross" in f for f in files),
          "--out writes the explorer and a picture per layer and head, none of cross-attention: %r" % sorted(files))
    terminal = run("attention", "--run", "lm", "--text", "the old king", "--terminal").stdout
    check("prompt: the old king" in terminal and terminal.count("decoder self-attention · layer") == LAYERS * HEADS,
          "--terminal prints the prompt and every head")
    for option, needle in [(["--target", "le roi"], "--target forces a translation"),
                           (["--beam", "2"], "--beam searches translations"),
                           (["--compare", "lm", "--out", "x"], "--compare works on translation runs"),
                           (["--contrast", "0:the"], "--contrast attributes a translation"),
                           (["--max-tokens", "3", "--temperature", "-1"], "--temperature")]:
        refused("attention " + " ".join(option), needle, "attention", "--run", "lm", "--text", "the old", "--json",
                *option)
    refused("align on a language model", "no source to align", "align", "--run", "lm")
    report = run("report", "--run", "lm", "--samples", "3")
    page = open(os.path.join(work, "lm", "report.html")).read() if report.returncode == 0 else ""
    check("Sample continuations" in page and "Attention over one text" in page and page.count("<tr><td>") == 3,
          "report writes continuations and the attention of one text: %r" % report.stderr)
    return data


def post(port, path, request):
    call = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=json.dumps(request).encode(),
                                  headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(call, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def served(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=30) as answer:
        page = answer.read().decode()
    check('"language_model":[true]' in page and '"new_tokens":200' in page,
          "the page states the language model and its sampling limits")
    for ask in [{"text": "the old", "max_tokens": 6},
                {"text": "the old", "max_tokens": 6, "temperature": 1.5, "top_k": 20, "top_p": 0.9, "seed": 7}]:
        status, data = post(port, "/api/translate", dict(ask, run=0))
        arguments = ["attention", "--run", "lm", "--text", ask["text"], "--max-tokens", "6", "--json"]
        for name in ["temperature", "top_k", "top_p", "seed"]:
            if name in ask:
                arguments += ["--" + name.replace("_", "-"), str(ask[name])]
        expected = json.loads(run(*arguments).stdout or "{}")
        check(status == 200 and data.get("generation") == expected.get("generation") and
              data.get("maps") == expected.get("maps"), "serve answers %r as the command does" % ask)
    for bad, needle in [({"max_tokens": 201}, '"max_tokens" must be an integer from 0 to 200'),
                        ({"temperature": -0.5}, '"temperature" must be a number from 0 to 10'),
                        ({"top_p": 0}, '"top_p" must be a number above 0 and at most 1'),
                        ({"top_k": 1.5}, '"top_k" must be an integer'), ({"seed": -1}, '"seed" must be an integer'),
                        ({"beam": 1}, 'takes no "beam"'), ({"interventions": ["mask:source:0"]}, 'no "interventions"')]:
        status, answer = post(port, "/api/translate", dict(bad, run=0, text="the old"))
        check(status == 400 and needle in answer.get("error", ""),
              "%r → 400 naming it: %d %r" % (bad, status, str(answer)[:200]))
    status, answer = post(port, "/api/film", {"run": 0, "text": "the old", "target": "king"})
    check(status == 400 and "has no film" in answer.get("error", ""), "/api/film refuses a language model: %r" % answer)
    status, answer = post(port, "/api/contrast", {"run": 0, "text": "the old", "target": "king", "position": 0,
                                                  "alternative": "the"})
    check(status == 400 and "no source words" in answer.get("error", ""), "/api/contrast refuses it: %r" % answer)


if commands():
    port = free_port()
    server = subprocess.Popen([attnlab, "serve", "--run", "lm", "--port", str(port)], cwd=work,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if check("http://127.0.0.1:%d/" % port in server.stdout.readline(), "serve started on a language model"):
            served(port)
    finally:
        stop(server)
sys.exit(checks.finish())
