#!/usr/bin/env python3
"""live_language_model_browser_test.py — a language model's run in the live explorer (the browser build), opened
from disk in headless Chromium, against `attnlab generate` and `attnlab serve` on the same run.

A tiny model of the toy English trains here in a few seconds (as tests/cli/generate_test.sh trains it). The page
`attnlab attention --live --run lm` writes:
  * loads the run into the engine (web/engine.cpp) and shows the sampling fields (generate.js), not beam or IG
    steps, bounded as serve bounds them (gpt/generation_request.h);
  * a prompt typed into the form with temperature, top-k and seed set is continued into the very text
    `attnlab generate` prints for the same settings, and the page's generation and maps equal serve's answer;
  * a temperature below 0 and a top-p of 0 are refused in the words serve refuses them with, and translating
    (attnlab_translate) is refused, saying the run continues prompts;
  * a link with the sampling fields in it, opened afresh, is continued with them (the form waits for the engine).
Prints the time of one continuation in the page. Exits 77 (skipped) when selenium, chromium or chromedriver is
missing, or the browser build is not built.
    usage: live_language_model_browser_test.py ATTNLAB SOURCE_DIR ENGINE_JS WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inspect"))
from checklist import Checklist, body, console_errors, free_port, start_chromium, stop, wait_for  # noqa: E402

attnlab, source_dir, engine, work = [os.path.abspath(a) for a in sys.argv[1:5]]
if not os.path.isfile(engine):   # tools/test.sh --wasm builds it
    sys.exit(print("SKIP: no browser build at %s: cmake --preset wasm && cmake --build --preset wasm" % engine) or 77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
checks = Checklist("live language model")
check = checks.check
lm = os.path.join(os.path.abspath(work), "lm")
PROMPT = "the old"
SETTINGS = {"max_tokens": 12, "temperature": 0.8, "top_k": 5, "top_p": 1, "seed": 3}


def run(*arguments):
    return subprocess.run([attnlab, *arguments], cwd=work, capture_output=True, text=True)


def train():
    """The shipped configs/toy-en-lm.yaml made tiny: one layer of d_model 32, 30 steps on the 500 validation lines."""
    tiny = {"data.train_text": "data/toy-en-fr/valid.en", "data.valid_text": "data/toy-en-fr/test.en",
            "data.test_text": "data/toy-en-fr/test.en", "model.d_model": 32, "model.heads": 2, "model.d_ff": 64,
            "model.decoder_layers": 1, "train.threads": 1, "train.batch_tokens": 512, "train.max_steps": 30,
            "train.max_minutes": 1, "train.warmup_steps": 10, "train.valid_every": 1000}
    overrides = [part for key, value in tiny.items() for part in ("--set", "%s=%s" % (key, value))]
    result = subprocess.run([attnlab, "train", "--config", "configs/toy-en-lm.yaml", "--run", lm, *overrides],
                            cwd=source_dir, capture_output=True, text=True)
    return check(result.returncode == 0, "a tiny language model trains: " + result.stderr[-400:])


def generated(settings):
    """What `attnlab generate` continues PROMPT with under `settings`."""
    result = run("generate", "--run", lm, "--prompt", PROMPT, "--continuation-only",
                 "--max-tokens", str(settings["max_tokens"]), "--temperature", str(settings["temperature"]),
                 "--top-k", str(settings["top_k"]), "--top-p", str(settings["top_p"]), "--seed", str(settings["seed"]))
    check(result.returncode == 0, "attnlab generate: " + result.stderr)
    return result.stdout.strip()


def served(port, request):
    """serve's answer to POST /api/translate: (status, the JSON answer)."""
    data = json.dumps(dict(request, text=PROMPT, run=0)).encode()
    post = urllib.request.Request("http://127.0.0.1:%d/api/translate" % port, data=data,
                                  headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(post, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def set_field(driver, name, value):
    from selenium.webdriver.common.by import By
    field = driver.find_element(By.ID, "ask-" + name.replace("_", "-"))
    field.clear()
    field.send_keys(str(value))


def submit(driver):
    """Presses Generate; the status line's text once the page has answered."""
    from selenium.webdriver.common.by import By
    driver.execute_script("document.getElementById('ask-status').setAttribute('data-state', 'asked')")
    driver.find_element(By.CSS_SELECTOR, "#ask button[type=submit]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "ask-status").get_attribute("data-state") in ("done", "error"), 60)
    return driver.find_element(By.ID, "ask-status").text


def numbers(value):
    """Every number of a nested list, in order."""
    if isinstance(value, list):
        return [x for item in value for x in numbers(item)]
    return [value]


def largest_difference(page, server):
    """The largest difference between the weights of the two answers' maps (inf when their shapes differ)."""
    ours = [numbers(m["weights"]) for m in page.get("maps", [])]
    theirs = [numbers(m["weights"]) for m in server.get("maps", [])]
    if not ours or [len(w) for w in ours] != [len(w) for w in theirs]:
        return float("inf")
    return max(abs(a - b) for w, v in zip(ours, theirs) for a, b in zip(w, v))


def form(driver, page, port):
    from selenium.webdriver.common.by import By
    driver.get(page)
    if not check(wait_for(driver, lambda d: body(d, "data-live-ready") in ("1", "error"), 60) and
                 body(driver, "data-live-ready") == "1", "the page loads the run: " +
                 driver.find_element(By.ID, "live-status").text):
        return
    check(driver.find_element(By.ID, "ask-sampling").is_displayed(), "the sampling fields are shown")
    check(not driver.find_element(By.ID, "ask-beam").is_displayed(), "the beam field is hidden for a language model")
    bounds = {f: driver.find_element(By.ID, "ask-" + f).get_attribute("max")
              for f in ["max-tokens", "temperature", "top-k", "top-p", "seed"]}
    check(bounds == {"max-tokens": "200", "temperature": "10", "top-k": "100000", "top-p": "1", "seed": "2147483647"},
          "the fields take the engine's limits, serve's: %r" % bounds)
    driver.find_element(By.ID, "ask-text").send_keys(PROMPT)
    for name, value in SETTINGS.items():
        set_field(driver, name, value)
    status = submit(driver)
    shown = driver.execute_script("return window.attnlabExplorer.data")
    continuation = (shown or {}).get("generation", {}).get("continuation")
    expected = generated(SETTINGS)
    check(continuation == expected and expected, "the page continues %r as attnlab generate does: %r, not %r"
          % (PROMPT, expected, continuation))
    code, answer = served(port, SETTINGS)
    check(code == 200 and answer.get("generation") == shown.get("generation"),
          "the page's generation is serve's: %r vs %r" % (shown.get("generation"), answer.get("generation")))
    check(code == 200 and largest_difference(shown, answer) <= 1e-5, "the page's maps are serve's within 1e-5")
    timing = driver.execute_script("return window.attnlabLive.timings[window.attnlabLive.timings.length - 1]")
    print("one continuation in the page (%d tokens of the prompt and up to %d new ones, the maps of the text): "
          "%.0f ms; status: %s" % (len(PROMPT.split()), SETTINGS["max_tokens"], timing["ms"], status))
    for name, value, words in [("temperature", -1, '"temperature" must be a number from 0 to 10, got -1'),
                               ("top_p", 0, '"top_p" must be a number above 0 and at most 1, got 0')]:
        set_field(driver, name, value)
        refusal = submit(driver)
        code, answer = served(port, dict(SETTINGS, **{name: value}))
        check(refusal == words and answer.get("error") == words and code == 400,
              "a bad %s is refused in serve's words: %r (serve: %r)" % (name, refusal, answer.get("error")))
        set_field(driver, name, SETTINGS[name])
    translated = driver.execute_async_script("var done = arguments[0]; window.attnlabLive.translate('the old')"
                                             ".then(done, function (e) { done({error: String(e)}); });")
    check("it continues a prompt, it does not translate" in translated.get("error", ""),
          "the engine refuses to translate with a language model, saying why: %r" % translated)
    check(not console_errors(driver), "no console error: %r" % console_errors(driver))
    return continuation


def link(driver, page, continuation):
    """The page opened afresh on a link with the sampling fields: continued with them before anything is typed."""
    from selenium.webdriver.common.by import By
    driver.get("about:blank")
    driver.get(page + "#" + urllib.parse.urlencode(dict(SETTINGS, text=PROMPT)))
    wait_for(driver, lambda d: d.find_element(By.ID, "ask-status").get_attribute("data-state") in ("done", "error"), 60)
    shown = driver.execute_script("return window.attnlabExplorer.data && window.attnlabExplorer.data.generation")
    check((shown or {}).get("continuation") == continuation and shown.get("seed") == SETTINGS["seed"],
          "a link with the fields draws the same text: %r" % shown)


def in_chromium(port):
    page = "file://" + os.path.join(os.path.abspath(work), "page", "index.html")
    driver, profile = start_chromium("live-lm-chrome-")   # exits 77 (skipped) without selenium or chromium
    try:
        continuation = form(driver, page, port)
        if continuation:
            link(driver, page, continuation)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


if train():
    result = run("attention", "--live", "--engine", engine, "--run", lm, "--out", "page")
    check(result.returncode == 0, "attention --live writes the page of a language model: " + result.stderr)
    serve_port = free_port()
    server = subprocess.Popen([attnlab, "serve", "--run", lm, "--port", str(serve_port)], cwd=work,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = "http://127.0.0.1:%d/" % serve_port in server.stdout.readline()
    try:
        if check(started, "serve started"):
            in_chromium(serve_port)
    finally:
        stop(server)
sys.exit(checks.finish())
