#!/usr/bin/env python3
"""live_translator_browser_test.py — the toy English→French translator trains in the live explorer's page (training.js,
web/training.cpp), opened from disk in headless Chromium, and what it makes is the native attnlab's.

The page without a run, task "toy English→French" (configs/toy-en-fr.yaml with the page's overrides), for a bounded
number of steps:
  * the corpus the worker generated is data/toy-en-fr byte for byte (SHA-256 of every file);
  * run A, one slice: the loss falls, a validation reports exact match and token accuracy, the learner's sentence is
    translated with its cross-attention drawn;
  * Download gives a .tar that `tar -xf` unpacks into a run folder the native attnlab reads: `attnlab eval` on the
    first 50 validation sentences (the ones training validates on: train.valid_samples=50, to be quick) gives the
    page's exact match, on the whole split
    its validation loss (within 1e-3) and token accuracy (within 0.002), and `attnlab translate` gives the page's
    translation of the watched sentence and of test sentences as the page's explorer translates them;
  * closing the tab asks while steps are not downloaded (a cancelable beforeunload is cancelled), not after;
  * run B, in slices of 2 s, paused and resumed by the Pause button: every step's loss equals run A's, bit for bit
    (train()'s --resume contract, single-threaded), and nothing trains while paused;
  * the downloaded run, picked back into the page, continues training there (Continue the picked run).
With --full (tools/web_translator.sh): instead, trains until 95 % exact match or 15 minutes and prints the time, the
steps, the page's tokens per second and the native build's at the same thread count, the page's size and load time;
then downloads the run and checks it under the native attnlab as above (eval's exact match is the validation of the
best checkpoint, the one with the lowest validation loss; translate gives the page's translations).
With --speed (a few minutes): only the speed — the page trains --steps steps (default 60) in one slice without
validating, and its tokens per second at the last step are printed beside the native build's at one thread (200 steps,
the same config and overrides), as train() counts them in both.
With --serve THREADS_ENGINE_JS (with --full or --speed): the page is served cross-origin isolated
(tools/serve_isolated.py, the threaded engine — preset wasm-threads — copied beside it) instead of opened from disk,
so it trains on navigator.hardwareConcurrency threads; the native build then runs on as many.
Exits 77 (skipped) when selenium, chromium or chromedriver is missing, or the browser build is not built.
    usage: live_translator_browser_test.py ATTNLAB_BINARY ENGINE_JS WORK_DIR [--full | --speed] [--steps N]
                                           [--serve THREADS_ENGINE_JS]
"""
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inspect"))
from checklist import Checklist, body, console_errors, free_port, start_chromium, stop, wait_for  # noqa: E402

attnlab, engine, work = [os.path.abspath(a) for a in sys.argv[1:4]]
full = "--full" in sys.argv
speed = "--speed" in sys.argv
steps = int(sys.argv[sys.argv.index("--steps") + 1]) if "--steps" in sys.argv else 60 if speed else 30
threads_engine = os.path.abspath(sys.argv[sys.argv.index("--serve") + 1]) if "--serve" in sys.argv else None
root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))   # data/toy-en-fr
if not os.path.exists(engine):
    print("SKIP: the browser build is not built (%s is missing): cmake --preset wasm && cmake --build --preset wasm"
          % engine)
    sys.exit(77)
if threads_engine and not (full or speed):
    sys.exit("live_translator_browser_test.py: --serve goes with --full or --speed")
if threads_engine and not os.path.exists(threads_engine):
    print("SKIP: the threaded engine is not built (%s is missing): cmake --preset wasm-threads && cmake --build "
          "--preset wasm-threads" % threads_engine)
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
checks = Checklist("the toy translator in the page")
check = checks.check
with open(os.path.join(root, "data", "toy-en-fr", "test.en")) as f:
    TEST_SENTENCES = [line.strip() for line in f][:5]
WATCHED = TEST_SENTENCES[0]
VALID_SAMPLES = 200 if full else 50   # the validation sentences translated for exact match (the config's 200)


def wait(driver, condition, what, seconds):
    return wait_for(driver, condition, seconds) or check(False, "timed out (%d s) waiting for %s" % (seconds, what))


def state(driver):
    return driver.find_element(By.ID, "train-status").get_attribute("data-state")


def training(driver):
    return json.loads(driver.execute_script(
        "var t = window.attnlabLive.training; return JSON.stringify({losses: t.losses, stepLosses: t.stepLosses,"
        " validations: t.validations, slices: t.slices, outcome: t.outcome, corpus: t.corpus, watched: t.watched,"
        " started: t.started, threadsRunning: t.threadsRunning || 1});"))


def page_ready(driver):
    """Writes the live page (without a run) and opens it: from disk, or served isolated with the threaded engine
    beside it (--serve). Returns its size, its load time, and the server to stop (or None)."""
    out = os.path.join(work, "page")
    result = subprocess.run([attnlab, "attention", "--live", "--engine", engine, "--out", out],
                            capture_output=True, text=True)
    check(result.returncode == 0, "attention --live: " + result.stderr)
    address, server = "file://" + os.path.join(out, "index.html"), None
    if threads_engine:
        for suffix in (".js", ".wasm", ".worker.js"):
            shutil.copy(threads_engine[:-len(".js")] + suffix, out)
        port = free_port()
        server = subprocess.Popen([sys.executable, os.path.join(root, "tools", "serve_isolated.py"), out, "--port",
                                   str(port)], stdout=subprocess.PIPE, text=True)
        check("serving" in server.stdout.readline(), "serve_isolated.py started")
        address = "http://127.0.0.1:%d/index.html" % port
    started = time.perf_counter()
    driver.get(address)
    wait(driver, lambda d: body(d, "data-live-ready") == "1", "the page to load", 90)
    wait(driver, lambda d: d.find_element(By.ID, "train-engine").get_attribute("data-threads"), "the engine choice", 30)
    said = driver.find_element(By.ID, "train-engine")
    print("the page says: %s (%s threads)" % (said.text, said.get_attribute("data-threads")))
    if threads_engine:
        check(driver.execute_script("return self.crossOriginIsolated;") is True and "threaded engine" in said.text,
              "served, the page is cross-origin isolated and trains on the threaded engine: %s" % said.text)
    return os.path.getsize(os.path.join(out, "index.html")), time.perf_counter() - started, server


def train_in_page(driver, overrides, slice_seconds, seconds, pause_at=None):
    """Starts the toy translator with these overrides; pauses once at step pause_at (then resumes); waits."""
    driver.execute_script("var t = window.attnlabLive.training; t.overrides = arguments[0];"
                          "t.sliceSeconds = arguments[1];", overrides, slice_seconds)
    driver.find_element(By.ID, "train-task").send_keys("toy")
    sentence = driver.find_element(By.ID, "train-sentence")
    sentence.clear()
    sentence.send_keys(WATCHED)
    driver.find_element(By.ID, "train-start").click()
    if pause_at is not None:
        pause_and_resume(driver, pause_at)
    wait(driver, lambda d: state(d) in ("done", "error"), "the toy translator to train", seconds)
    return training(driver)


def last_step(driver):
    return driver.execute_script("var l = window.attnlabLive.training.losses; return l.length ? l[l.length-1].step : 0;")


def pause_and_resume(driver, pause_at):
    wait(driver, lambda d: last_step(d) >= pause_at or state(d) in ("done", "error"), "step %d" % pause_at, 120)
    driver.find_element(By.ID, "train-pause").click()
    if not wait(driver, lambda d: state(d) == "paused", "the pause", 60):
        return
    paused_at = last_step(driver)
    time.sleep(3)
    check(last_step(driver) == paused_at, "steps went on while paused: %d, then %d" % (paused_at, last_step(driver)))
    print("paused at step %d; nothing trained in 3 s; resuming" % paused_at)
    driver.find_element(By.ID, "train-pause").click()


def download(driver, into):
    os.makedirs(into, exist_ok=True)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": into})
    driver.find_element(By.ID, "train-download").click()
    wait(driver, lambda d: glob.glob(os.path.join(into, "*.tar")), "the .tar download", 60)
    tars = glob.glob(os.path.join(into, "*.tar"))
    if not tars:
        return None
    time.sleep(1)                                        # Chromium renames the finished file into place
    with tarfile.open(tars[0]) as archive:
        names = archive.getnames()
        archive.extractall(into)
    print("downloaded %s (%.1f MB): %s" % (os.path.basename(tars[0]), os.path.getsize(tars[0]) / 1e6, ", ".join(names)))
    return os.path.join(into, "toy-en-fr")


def native(*arguments, threads=1):
    result = subprocess.run([attnlab] + list(arguments), capture_output=True, text=True, cwd=root,
                            env=dict(os.environ, OMP_NUM_THREADS=str(threads)))
    check(result.returncode == 0, "attnlab %s: %s" % (" ".join(arguments[:3]), result.stderr[-400:]))
    return result.stdout


def check_corpus(corpus):
    if not check(corpus, "the worker reported no corpus digests"):
        return
    for name in sorted(corpus):
        with open(os.path.join(root, "data", "toy-en-fr", name), "rb") as f:
            check(hashlib.sha256(f.read()).hexdigest() == corpus[name], "the page's %s is not data/toy-en-fr's" % name)
    print("the corpus generated in the page: %d files, each data/toy-en-fr's bytes" % len(corpus))


def check_native(driver, run, t):
    """The downloaded run under the native attnlab: eval's numbers (on best.safetensors: the validation with the
    lowest loss) and translate's translations are the page's."""
    v = min(t["validations"], key=lambda v: v["loss"])
    head = os.path.join(work, "valid200")
    for side in ("en", "fr"):
        with open(os.path.join(root, "data", "toy-en-fr", "valid." + side)) as f, open(head + "." + side, "w") as out:
            out.writelines(f.readlines()[:VALID_SAMPLES])
    first200 = json.loads(native("eval", "--run", run, "--src", head + ".en", "--ref", head + ".fr", "--json") or "{}")
    whole = json.loads(native("eval", "--run", run, "--split", "valid", "--json") or "{}")
    print("page: exact %.4f, loss %.5f, token accuracy %.4f; native eval: exact %.4f (first %d), loss %.5f, "
          "token accuracy %.4f" % (v["exact_match"], v["loss"], v["token_accuracy"], first200.get("exact_match", -1),
                                   VALID_SAMPLES,
                                   whole.get("loss", -1), whole.get("token_accuracy", -1)))
    check(abs(first200.get("exact_match", -1) - v["exact_match"]) < 1e-9, "exact match: page %r, native %r"
          % (v["exact_match"], first200.get("exact_match")))
    check(abs(whole.get("loss", -1) - v["loss"]) < 1e-3, "validation loss: page %r, native %r" % (v["loss"], whole.get("loss")))
    check(abs(whole.get("token_accuracy", -1) - v["token_accuracy"]) < 2e-3, "token accuracy: page %r, native %r"
          % (v["token_accuracy"], whole.get("token_accuracy")))
    source = t["watched"]["source"] if t["watched"] else WATCHED    # --full watches the page's own sentence
    watched = native("translate", "--run", run, "--text", source).rstrip("\n")
    if t["watched"] and t["watched"].get("step") != v["step"]:   # re-translated at a step other than the best's
        print("the watched sentence was translated at step %s, the best checkpoint is step %s's: not compared"
              % (t["watched"].get("step"), v["step"]))
    else:
        check(t["watched"] and t["watched"]["translation"] == watched, "the watched sentence: page %r, native %r"
              % (t["watched"], watched))
    for sentence in TEST_SENTENCES:
        page = in_page(driver, "fetch('api/translate', {method: 'POST', body: JSON.stringify(args[0])})"
                               ".then(function (r) { return r.json(); })", {"run": 1, "text": sentence, "beam": 0})
        expected = native("translate", "--run", run, "--text", sentence).rstrip("\n")
        check(page.get("target") == expected, "%r: page %r, native %r" % (sentence, page.get("target"), expected))
    print("native translate of the downloaded run: the page's translation of %d sentences" % (len(TEST_SENTENCES) + 1))


def in_page(driver, script, *arguments):
    return json.loads(driver.execute_async_script(
        "var args = arguments, done = arguments[arguments.length - 1];"
        "Promise.resolve().then(function () { return " + script + "; })"
        ".then(function (a) { done(JSON.stringify(a)); }, function (e) { done(JSON.stringify({error: String(e)})); });",
        *arguments))


def asks_before_closing(driver):
    return driver.execute_script("var e = new Event('beforeunload', {cancelable: true}); window.dispatchEvent(e);"
                                 "return e.defaultPrevented;")


def bounded_run(driver):
    overrides = ["train.max_steps=%d" % steps, "train.warmup_steps=300", "train.valid_every=%d" % steps,
                 "train.valid_samples=%d" % VALID_SAMPLES]
    started = time.perf_counter()
    a = train_in_page(driver, overrides, 1e9, 400)
    print("run A: the first step reported %.1f s after Train (the corpus generated, the run set up)"
          % ((a["losses"][0]["wall"] - a["started"]) / 1000 if a["losses"] else -1))
    losses = [a["stepLosses"][s] for s in range(1, steps + 1)] if len(a["stepLosses"]) > steps else []
    print("run A: %s in %.0f s; loss %s → %s" % (json.dumps(a["outcome"])[:200], time.perf_counter() - started,
                                                  losses[:1], losses[-1:]))
    if not check(len(losses) == steps and a["outcome"].get("outcome") == "finished", "run A did not train %d steps"
                 % steps):
        return
    check(losses[-1] < losses[0] * 0.8, "the loss did not fall: %r → %r" % (losses[0], losses[-1]))
    check(len(driver.find_elements(By.CSS_SELECTOR, "#train-map rect")) > 0, "no attention map drawn")
    check_corpus(a["corpus"])
    check(asks_before_closing(driver), "closing the tab with a run not downloaded does not ask")
    run = download(driver, os.path.join(work, "download-a"))
    check(run and os.path.exists(os.path.join(run, "config.yaml")), "the .tar holds no toy-en-fr/config.yaml")
    check(not asks_before_closing(driver), "closing the tab asks although the run is downloaded")
    if run:
        check_native(driver, run, a)
    b = train_in_page(driver, overrides[:2] + ["train.valid_every=1000"] + overrides[3:], 2, 400,
                      pause_at=steps // 3)
    losses_b = [b["stepLosses"][s] for s in range(1, steps + 1)] if len(b["stepLosses"]) > steps else []
    walls = [s["wall"] for s in b["slices"]]
    gaps = [(y - x) / 1000 - s["seconds"] for x, y, s in zip(walls, walls[1:], b["slices"][1:])]
    print("run B: %d slices; pause and resume; every loss equal to run A's: %s; a slice's set-up and checkpoint "
          "(its wall time less its training time): median %.2f s" % (len(b["slices"]), losses_b == losses,
                                                                     sorted(gaps)[len(gaps) // 2] if gaps else 0))
    check(len(b["slices"]) >= 3, "run B trained in %d slices, not several" % len(b["slices"]))
    check(losses_b == losses, "run B's losses differ from run A's: first at step %s" %
          next((s + 1 for s, (x, y) in enumerate(zip(losses, losses_b)) if x != y), "(lengths)"))
    if run:
        continue_picked(driver, run)


def continue_picked(driver, run):
    """The downloaded run, picked as a folder's files, trains on in the page from its step."""
    files = [os.path.join(run, "config.yaml")] + glob.glob(os.path.join(run, "*tokenizer*")) + \
        glob.glob(os.path.join(run, "checkpoints", "*.safetensors"))
    driver.find_element(By.ID, "live-pick-files").send_keys("\n".join(files))
    wait(driver, lambda d: "loaded" in d.find_element(By.ID, "live-status").text, "the picked run to load", 60)
    driver.execute_script("window.attnlabLive.training.overrides = arguments[0];",
                          ["train.max_steps=%d" % (steps + 5), "train.valid_every=1000"])
    driver.find_element(By.ID, "train-continue").click()
    wait(driver, lambda d: state(d) in ("done", "error"), "the picked run to train on", 120)
    t = training(driver)
    first = next((s for s, loss in enumerate(t["stepLosses"]) if loss is not None), None)
    print("continued the downloaded run in the page: %s, steps %s … %d" % (json.dumps(t["outcome"])[:120], first,
                                                                            len(t["stepLosses"]) - 1))
    check(first == steps + 1 and len(t["stepLosses"]) - 1 == steps + 5,
          "the picked run did not train on from step %d to %d" % (steps + 1, steps + 5))


def full_run(driver, size, load_seconds):
    """Until 95 % exact match or 15 minutes; the page's speed beside the native build's at one thread."""
    started = time.perf_counter()
    driver.execute_script("var t = window.attnlabLive.training; t.overrides = null;")
    driver.find_element(By.ID, "train-task").send_keys("toy")
    driver.find_element(By.ID, "train-start").click()
    reached = lambda d: any(v["exact_match"] >= 0.95 for v in training(d)["validations"])   # noqa: E731
    wait(driver, lambda d: reached(d) or state(d) in ("done", "error"), "95 % exact match", 15 * 60)
    seconds = time.perf_counter() - started
    t = training(driver)
    driver.find_element(By.ID, "train-pause").click()
    wait(driver, lambda d: state(d) in ("paused", "done", "error"), "the pause (the end of the slice)", 120)
    best = max(t["validations"], key=lambda v: v["exact_match"]) if t["validations"] else {}
    page_speed = [r["tokens_per_second"] for r in t["losses"]]
    print("page: %.1f %% exact at step %s, %.0f s after Train (%.1f min); %d steps in %.0f s wall: %.2f steps/s; "
          "tokens/s in a slice: median %.0f" % (100 * best.get("exact_match", 0), best.get("step"), seconds,
                                                seconds / 60, t["losses"][-1]["step"], seconds,
                                                t["losses"][-1]["step"] / seconds, sorted(page_speed)[len(page_speed) // 2]))
    for v in t["validations"]:
        print("  validation step %d: exact %.3f, token accuracy %.3f" % (v["step"], v["exact_match"], v["token_accuracy"]))
    check(best.get("exact_match", 0) >= 0.95 and seconds <= 15 * 60, "not 95 %% exact within 15 minutes")
    print("page: %.2f MB (index.html, the engine inside), loaded in %.1f s" % (size / 1e6, load_seconds))
    run = download(driver, os.path.join(work, "download"))
    if check(run and os.path.exists(os.path.join(run, "config.yaml")), "the .tar holds no toy-en-fr/config.yaml"):
        check_native(driver, run, training(driver))
    compare_with_native(sorted(page_speed)[len(page_speed) // 2], t["threadsRunning"])


def compare_with_native(page_speed, threads):
    """The native build's tokens/s on the page's thread count (200 steps of the same config) beside the page's."""
    out = os.path.join(work, "native")
    native("train", "--config", "configs/toy-en-fr.yaml", "--run", out, "--set", "train.threads=%d" % threads, "--set",
           "train.max_steps=200", "--set", "train.warmup_steps=300", "--set", "train.valid_every=100000", threads=threads)
    with open(os.path.join(out, "metrics.jsonl")) as f:
        lines = [json.loads(line) for line in f if '"tokens_per_s"' in line]
    print("native, %d thread(s): %.0f tokens/s (metrics.jsonl, step %d); page/native %.3f; load average %s"
          % (threads, lines[-1]["tokens_per_s"], lines[-1]["step"], page_speed / lines[-1]["tokens_per_s"],
             " ".join(open("/proc/loadavg").read().split()[:3])))


def speed_run(driver):
    """--steps steps in one slice, no validation: the page's tokens/s at the last step, then the native build's."""
    print("load average %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    t = train_in_page(driver, ["train.max_steps=%d" % steps, "train.warmup_steps=300", "train.valid_every=100000"],
                      1e9, 60 * 60)
    reports = [r for r in t["losses"] if r.get("tokens_per_second")]
    if not check(reports and reports[-1]["step"] == steps, "the page did not train %d steps: %s"
                 % (steps, json.dumps(t["outcome"])[:200])):
        return
    last = reports[-1]
    print("page, %d thread(s) of WebAssembly: %.0f tokens/s at step %d (%.1f s of training)"
          % (t["threadsRunning"], last["tokens_per_second"], last["step"], last["seconds"]))
    compare_with_native(last["tokens_per_second"], t["threadsRunning"])


driver, profile = start_chromium("live-translator-")   # exits 77 (skipped) without selenium or chromium
driver.set_script_timeout(120)
from selenium.webdriver.common.by import By  # noqa: E402 (after start_chromium, which skips without selenium)
server = None
try:
    size, load_seconds, server = page_ready(driver)
    if full:
        full_run(driver, size, load_seconds)
    elif speed:
        speed_run(driver)
    else:
        bounded_run(driver)
    check(not console_errors(driver), "console errors " + repr(console_errors(driver))[:400])
finally:
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
    if server:
        stop(server)
sys.exit(checks.finish())
