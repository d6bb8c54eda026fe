#!/usr/bin/env python3
"""live_browser_test.py — the live explorer (src/inspect/pages/live_page.h): attnlab in a page, opened from disk in
headless Chromium, against the native attnlab on the same runs.

For each of the five tiny runs of tests/inspect/explorer_runs.sh (every attention kind among them), the page that
`attnlab attention --live --run RUN` writes, opened as a file:// address with no server:
  * loads the engine (the browser build, WebAssembly) and the bundled run, with no console error;
  * translates the test sentences exactly as `attnlab translate --run RUN --text S` does;
  * records, for the fixture's sentence, the attention `attnlab attention` recorded: the same tokens and
    translation, and every weight of every map within 1e-5;
  * answers the explorer's own form: typing a sentence and pressing Translate draws the views, from the page.
And a page written with --checkpoint average, which bundles checkpoints/average.safetensors and no other checkpoint:
it loads that file and translates as `attnlab translate --checkpoint average` does.
The interventions panel in the page (interventions.js, answered by the engine): a link with intervene=SPEC,SPEC
translates with them as `attnlab translate --intervene … --json` does (translation and log-probability, and the
plain ones beside them), the panel says a swap is not in the page, and a swap asked of the engine is refused by name.
Then the page without a run, with --train: the copy task trains in a Web Worker until every validation sentence is
copied exactly, within 3 minutes, with a falling loss curve drawn (tests/CMakeLists.txt: browser.live_training).
Prints the page's and the native per-sentence translation times (one thread each; on a loaded machine, rough).
Exits 77 (skipped) when selenium, chromium or chromedriver is missing, or the browser build is not built.
    usage: live_browser_test.py ATTNLAB_BINARY ENGINE_JS RUNS_DIR WORK_DIR [--train]
"""
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inspect"))
from checklist import Checklist, body, console_errors, start_chromium  # noqa: E402

attnlab, engine, runs_dir, work = sys.argv[1:5]
train = "--train" in sys.argv
if not os.path.exists(engine):
    print("SKIP: the browser build is not built (%s is missing): cmake --preset wasm && cmake --build --preset wasm, "
          "or tools/web.sh" % engine)
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
checks = Checklist("live explorer")
check = checks.check
RUNS = ["dot", "mixed", "other", "local", "hard"]


def wait(driver, condition, what, seconds=30):
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.2).until(lambda d: condition(d))
        return True
    except Exception:
        return check(False, "timed out waiting for " + what)


def in_page(driver, script, *arguments):
    """Runs `script` (a promise's expression over args[0…]) in the page; its JSON answer."""
    return json.loads(driver.execute_async_script(
        "var args = arguments, done = arguments[arguments.length - 1];"
        "Promise.resolve().then(function () { return " + script + "; })"
        ".then(function (a) { done(JSON.stringify(a)); }, function (e) { done(JSON.stringify({error: String(e)})); });",
        *arguments))


def write_page(run, out, checkpoint=None):
    command = [attnlab, "attention", "--live", "--engine", engine, "--out", out]
    if run:
        command += ["--run", os.path.join(runs_dir, run)]
    if checkpoint:
        command += ["--checkpoint", checkpoint]
    result = subprocess.run(command, capture_output=True, text=True)
    check(result.returncode == 0, "attention --live: " + result.stderr)
    return "file://" + os.path.abspath(os.path.join(out, "index.html"))


def native_translation(run, sentence, checkpoint="best"):
    started = time.perf_counter()
    result = subprocess.run([attnlab, "translate", "--run", os.path.join(runs_dir, run), "--text", sentence,
                             "--checkpoint", checkpoint],
                            capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    return result.stdout.rstrip("\n"), time.perf_counter() - started


def largest_difference(page, native):
    """The largest |page − native| over every weight of every map (maps matched by type and layer)."""
    worst = 0.0
    key = lambda m: (m["type"], m["layer"])  # noqa: E731
    native_maps = {key(m): m for m in native["maps"]}
    check(len(page["maps"]) == len(native["maps"]), "the page recorded %d maps, native %d"
          % (len(page["maps"]), len(native["maps"])))
    for m in page["maps"]:
        n = native_maps.get(key(m))
        if not check(n is not None and m["kind"] == n["kind"], "map %s: none of that kind natively" % (key(m),)):
            continue
        for head_page, head_native in zip(m["weights"], n["weights"]):
            for row_page, row_native in zip(head_page, head_native):
                check(len(row_page) == len(row_native), "map %s: rows of different lengths" % (key(m),))
                for a, b in zip(row_page, row_native):
                    worst = max(worst, abs(a - b))
    return worst


def check_run(driver, run, sentences, timings):
    url = write_page(run, os.path.join(work, run + "-live"))
    driver.get(url)
    if not wait(driver, lambda d: body(d, "data-live-ready") in ("1", "error"), run + ": the engine to load", 60):
        return
    check(body(driver, "data-live-ready") == "1", run + ": " + driver.find_element(By.ID, "live-status").text)
    check(not console_errors(driver), run + ": console errors " + repr(console_errors(driver)))
    for sentence in sentences:
        expected, native_seconds = native_translation(run, sentence)
        started = time.perf_counter()
        answer = in_page(driver, "window.attnlabLive.translate(args[0])", sentence)
        timings.append((run, time.perf_counter() - started, native_seconds))
        check(answer.get("translation") == expected,
              "%s: page translates %r as %r, attnlab translate as %r" % (run, sentence, answer, expected))
    with open(os.path.join(runs_dir, run + "-page", "attention.json")) as f:
        native = json.load(f)
    request = {"run": 0, "text": native["source"], "beam": 0, "ig_steps": 16}   # attention's default --ig-steps
    page = in_page(driver, "fetch('api/translate', {method: 'POST', body: JSON.stringify(args[0])})"
                           ".then(function (r) { return r.json(); })", request)
    if not check("error" not in page, run + ": the page's attention: " + str(page.get("error"))):
        return
    check(page["tokens"] == native["tokens"] and page["target"] == native["target"],
          run + ": the page's tokens or translation differ from attention.json's")
    worst = largest_difference(page, native)
    check(worst <= 1e-5, "%s: a weight differs from attention.json's by %.3g (more than 1e-5)" % (run, worst))
    print("%s: %d sentences as attnlab translate; attention weights within %.2g of attention.json"
          % (run, len(sentences), worst))
    # The explorer's own form, answered in the page.
    driver.find_element(By.ID, "ask-text").send_keys(sentences[0])
    driver.find_element(By.CSS_SELECTOR, "#ask button[type=submit]").click()
    wait(driver, lambda d: d.find_element(By.ID, "ask-status").get_attribute("data-state") in ("done", "error"),
         run + ": the form's answer")
    check(body(driver, "data-shown-text") == sentences[0] and body(driver, "data-explorer-ready") == "1",
          run + ": the form drew no views: " + driver.find_element(By.ID, "ask-status").text)
    check(not console_errors(driver), run + ": console errors after Translate " + repr(console_errors(driver)))


def check_averaged(driver, sentences):
    """A copy of the dot run with an averaged checkpoint, its page written with --checkpoint average."""
    run = os.path.join(work, "dot-averaged")          # absolute: os.path.join(runs_dir, run) is run itself
    shutil.copytree(os.path.join(runs_dir, "dot"), run)
    result = subprocess.run([attnlab, "average", "--run", run, "--last", "1"], capture_output=True, text=True)
    check(result.returncode == 0, "attnlab average: " + result.stderr)
    driver.get(write_page(run, os.path.join(work, "averaged-live"), checkpoint="average"))
    if not wait(driver, lambda d: body(d, "data-live-ready") in ("1", "error"), "averaged: the engine to load", 60):
        return
    status = driver.find_element(By.ID, "live-status").text
    if not check(body(driver, "data-live-ready") == "1", "the page of --checkpoint average did not load: " + status):
        return
    loaded = in_page(driver, "window.attnlabLive.slots[0].loaded")
    check(str(loaded.get("checkpoint", "")).endswith("checkpoints/average.safetensors"),
          "the page loaded %r, not the averaged checkpoint" % loaded.get("checkpoint"))
    for sentence in sentences:
        expected, _ = native_translation(run, sentence, "average")
        answer = in_page(driver, "window.attnlabLive.translate(args[0])", sentence)
        check(answer.get("translation") == expected, "averaged: page translates %r as %r, attnlab translate "
              "--checkpoint average as %r" % (sentence, answer, expected))
    print("averaged: the page of --checkpoint average loaded %s and translated %d sentences as attnlab translate"
          % (loaded.get("checkpoint"), len(sentences)))


def native_intervention(run, sentence, specs):
    command = [attnlab, "translate", "--run", os.path.join(runs_dir, run), "--text", sentence, "--json"]
    for spec in specs:
        command += ["--intervene", spec]
    result = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    check(result.returncode == 0, "attnlab translate --intervene: " + result.stderr)
    return json.loads(result.stdout or "{}")


def check_interventions(driver, sentence):
    """The dot run's page opened with a link that asks for interventions: the panel's answer is the command's."""
    specs = ["ablate:cross:0.1", "mask:source:1"]
    url = write_page("dot", os.path.join(work, "interventions-live"))
    driver.get(url + "#text=%s&intervene=%s" % (urllib.parse.quote(sentence), ",".join(specs)))
    if not wait(driver, lambda d: body(d, "data-intervention") or body(d, "data-live-ready") == "error",
                "the page's intervention", 90):
        return
    shown = json.loads(body(driver, "data-intervention") or "{}")
    expected, plain = native_intervention("dot", sentence, specs), native_intervention("dot", sentence, [])
    check(shown.get("translation") == expected.get("translation") and
          abs(shown.get("log_prob", 1) - expected.get("log_prob", 0)) < 1e-4,
          "the page's intervention %r is not the command's %r" % (shown, expected))
    check(shown.get("original", {}).get("translation") == plain.get("translation") and
          abs(shown["original"]["log_prob"] - plain.get("log_prob", 0)) < 1e-4,
          "the page's plain translation %r is not the command's %r" % (shown.get("original"), plain))
    answered = driver.find_element(By.ID, "iv-status").text   # "answered in S s": the panel's request, timed
    note = driver.find_elements(By.ID, "iv-live-note")
    check(note and "swap" in note[0].text, "the live page's panel says a swap is not in the page")
    swap = in_page(driver, "fetch('api/translate', {method: 'POST', body: JSON.stringify(args[0])})"
                           ".then(function (r) { return r.json(); })",
                   {"run": 0, "text": sentence, "interventions": ["swap:decoder.0=best"]})
    check("swap:decoder.0=best" in swap.get("error", "") and "browser build" in swap.get("error", ""),
          "a swap asked of the engine is refused by name: %r" % swap)
    check(not console_errors(driver), "console errors with interventions " + repr(console_errors(driver)))
    print("interventions in the page: %s → %r, log p %.4f (attnlab translate --intervene: %r, %.4f); %s"
          % (",".join(specs), shown.get("translation"), shown.get("log_prob", 0), expected.get("translation"),
             expected.get("log_prob", 0), answered))


def check_training(driver):
    driver.get(write_page(None, os.path.join(work, "training-live")))
    wait(driver, lambda d: body(d, "data-live-ready") == "1", "the page without a run to load", 60)
    started = time.perf_counter()
    driver.find_element(By.ID, "train-start").click()
    wait(driver, lambda d: d.find_element(By.ID, "train-status").get_attribute("data-state") in ("done", "error"),
         "the copy task to train", 200)
    seconds = time.perf_counter() - started
    training = json.loads(driver.execute_script("var t = window.attnlabLive.training;"
                                                "return JSON.stringify({losses: t.losses, validations: t.validations,"
                                                " outcome: t.outcome});"))
    losses = [point["loss"] for point in training["losses"]]
    outcome = training["outcome"] or {}
    print("training in the page: %s; %d loss points, %.3f → %.5f; %.0f s in all"
          % (json.dumps(outcome), len(losses), losses[0] if losses else 0, losses[-1] if losses else 0, seconds))
    check("error" not in outcome, "training failed: " + str(outcome.get("error")))
    check(len(losses) >= 10 and losses[-1] < losses[0] / 10, "the loss did not fall tenfold: %r" % losses[:3])
    check(outcome.get("exact_match") == 1.0, "the copy task ended %s%% exact, not 100%%"
          % (100 * outcome.get("exact_match", 0)))
    check(seconds < 180, "training took %.0f s, more than 3 minutes" % seconds)
    check(len(driver.find_elements(By.CSS_SELECTOR, "#train-loss polyline")) == 1, "no loss curve drawn")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#train-map rect")) > 0, "no attention map drawn")
    check(not console_errors(driver), "console errors while training " + repr(console_errors(driver)))
    steps = training["losses"][-1]["step"] if training["losses"] else 0
    if steps:
        print("copy task in the page: %d steps in %.1f s of training: %.1f steps per second"
              % (steps, training["losses"][-1]["seconds"], steps / training["losses"][-1]["seconds"]))


driver, profile = start_chromium("live-chrome-")   # exits 77 (skipped) without selenium or chromium
driver.set_script_timeout(120)
from selenium.webdriver.common.by import By  # noqa: E402 (after start_chromium, which skips without selenium)
try:
    if train:
        check_training(driver)
    else:
        with open(os.path.join(runs_dir, "data", "test.en")) as f:
            sentences = [line.strip() for line in f if line.strip()][:6]
        timings = []
        for run in RUNS:
            check_run(driver, run, sentences, timings)
        check_averaged(driver, sentences)
        check_interventions(driver, sentences[0])
        page_ms = 1000 * sum(t[1] for t in timings) / max(1, len(timings))
        print("per sentence: page %.1f ms (in-page call), native %.1f ms (a whole `attnlab translate` process)"
              % (page_ms, 1000 * sum(t[2] for t in timings) / max(1, len(timings))))
finally:
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
sys.exit(checks.finish())
