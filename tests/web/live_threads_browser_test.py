#!/usr/bin/env python3
"""live_threads_browser_test.py — threads in the page: the live explorer served cross-origin isolated trains on the
threaded engine (the wasm-threads preset, web/threads/), with the very losses of the one-thread engine.

The page `attnlab attention --live` writes (the one-thread engine inside it), with the threaded engine's three files
(attnlab_web_threads.js, .wasm, .worker.js) copied beside it, is served by tools/serve_isolated.py (COOP:
same-origin, COEP: require-corp) and opened in headless Chromium:
  * the page is cross-origin isolated, and says it trains on navigator.hardwareConcurrency threads;
  * the copy task trains STEPS steps with train.threads=2: the engine runs 2 threads (its own and one Web Worker);
Then the same page opened from disk (file://): not isolated, it says it trains on one thread because it was opened
from disk, and the one-thread engine's STEPS steps give the same validation (exact match, token accuracy) and watched
translation, and every step's loss within 1e-6 of the threaded engine's, relative — the reproducibility contract
native training has (docs/guide/performance.md, "What stays bit-reproducible"): a weight's gradient is a product
shared out along its depth, whose bits change with the thread count, so 1 and 2 threads train one float rounding
apart (natively too: `attnlab train configs/copy.yaml` 40 steps on 1 and 2 threads, validation loss
3.060285852583676 against 3.06028579065432), while the same thread count gives the same bits: the served page is
trained a second time on 2 threads and every step's loss must be identical, and served with train.threads=1 it
trains on the engine inside the page, with the from-disk run's bits. The test prints how many steps differ between
the engines.
Prints the runs' tokens/s (rough: the machine's load average beside them).
Exits 77 (skipped) when the threaded engine is not built (cmake --preset wasm-threads && cmake --build --preset
wasm-threads), or the one-thread engine, selenium, chromium or chromedriver is missing.
    usage: live_threads_browser_test.py ATTNLAB_BINARY ENGINE_JS THREADS_ENGINE_JS WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inspect"))
from checklist import (Checklist, body, console_errors, free_port, start_chromium, stop,  # noqa: E402
                       wait_for)

attnlab, engine, threads_engine, work = sys.argv[1:5]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
STEPS = 40
OVERRIDES = ["train.max_steps=%d" % STEPS, "train.valid_every=%d" % STEPS]
for path, what in ((engine, "cmake --preset wasm && cmake --build --preset wasm"),
                   (threads_engine, "cmake --preset wasm-threads && cmake --build --preset wasm-threads")):
    if not os.path.exists(path):
        print("SKIP: %s is missing: build it with %s (tools/test.sh --wasm does both)" % (path, what))
        sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
checks = Checklist("threads in the page")
check = checks.check


def wait(driver, condition, what, seconds):
    return wait_for(driver, condition, seconds) or check(False, "timed out (%d s) waiting for %s" % (seconds, what))


def write_page():
    out = os.path.join(work, "page")
    result = subprocess.run([attnlab, "attention", "--live", "--engine", engine, "--out", out],
                            capture_output=True, text=True)
    check(result.returncode == 0, "attention --live: " + result.stderr)
    stem = threads_engine[:-len(".js")]
    for suffix in (".js", ".wasm", ".worker.js"):
        shutil.copy(stem + suffix, out)
    return out


def train(driver, address, threads):
    """Opens the page at `address`, trains the copy task STEPS steps; what the page says and what it trained."""
    from selenium.webdriver.common.by import By
    driver.get("about:blank")                                  # a fresh page each time, even at the same address
    driver.get(address)
    wait(driver, lambda d: body(d, "data-live-ready") == "1", "the page to load", 90)
    wait(driver, lambda d: d.find_element(By.ID, "train-engine").get_attribute("data-threads"), "the engine choice", 30)
    said = driver.find_element(By.ID, "train-engine")
    choice = {"isolated": driver.execute_script("return self.crossOriginIsolated;"), "text": said.text,
              "threads": said.get_attribute("data-threads")}
    driver.execute_script("var t = window.attnlabLive.training; t.overrides = arguments[0]; t.sliceSeconds = 1e9;",
                          OVERRIDES + ["train.threads=%d" % threads])
    driver.find_element(By.ID, "train-task").send_keys("copy")
    driver.find_element(By.ID, "train-start").click()
    state = lambda d: d.find_element(By.ID, "train-status").get_attribute("data-state")
    wait(driver, lambda d: state(d) in ("done", "error"), "%d steps of the copy task" % STEPS, 240)
    trained = json.loads(driver.execute_script(
        "var t = window.attnlabLive.training; return JSON.stringify({stepLosses: t.stepLosses, losses: t.losses,"
        " validations: t.validations, watched: t.watched, outcome: t.outcome, threads: t.threadsRunning});"))
    check(state(driver) == "done", "training ended with: %s" % (trained["outcome"],))
    errors = [e for e in console_errors(driver) if "Blocking on the main thread" not in e]
    check(not errors, "console errors: %s" % errors[:3])
    return choice, trained


def engine_starts(driver, address, options):
    """Whether the threaded engine's createAttnlab(options) resolves within 20 s, in a Web Worker of the served page
    at `address` (as the page's training worker loads it): "resolved", "timeout", or the error."""
    driver.get(address)
    wait(driver, lambda d: body(d, "data-live-ready") == "1", "the page to load", 90)
    driver.set_script_timeout(60)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1], url = new URL('attnlab_web_threads.js', location.href).href;
        var main = function (url, options) {
          options.mainScriptUrlOrBlob = url;
          options.locateFile = function (path) { return new URL(path, url).href; };
          createAttnlab(options).then(function () { postMessage('resolved'); },
                                      function (e) { postMessage(String(e)); });
        };
        var text = 'importScripts(' + JSON.stringify(url) + ');\\n(' + main.toString() + ')(' + JSON.stringify(url) +
                   ', ' + JSON.stringify(arguments[0]) + ');';
        var worker = new Worker(URL.createObjectURL(new Blob([text], {type: 'text/javascript'})));
        var timer = setTimeout(function () { worker.terminate(); done('timeout'); }, 20000);
        worker.onmessage = function (e) { clearTimeout(timer); worker.terminate(); done(e.data); };
        worker.onerror = function (e) { clearTimeout(timer); worker.terminate(); done('error: ' + e.message); };
    """, options)


def tokens_per_second(trained):
    rates = [r["tokens_per_second"] for r in trained["losses"] if r.get("tokens_per_second")]
    return rates[-1] if rates else 0.0


def differing_steps(a, b):
    """The steps (1-based) whose loss differs between two runs, and the largest relative difference."""
    losses_a, losses_b = a["stepLosses"][1:STEPS + 1], b["stepLosses"][1:STEPS + 1]
    check(len(losses_a) == STEPS and None not in losses_a, "every step's loss is there: %s" % losses_a[:3])
    steps = [s + 1 for s, (x, y) in enumerate(zip(losses_a, losses_b)) if x != y]
    worst = max([abs(x - y) / max(abs(y), 1e-30) for x, y in zip(losses_a, losses_b) if x is not None and y is not None]
                or [0.0])
    return steps, worst


def compare_builds(threaded, alone):
    """The threaded engine against the one-thread engine: the same training, losses within 1e-6 relative."""
    steps, worst = differing_steps(threaded, alone)
    check(worst <= 1e-6, "a loss differs by %.2g relative between the two engines (steps %s)" % (worst, steps[:10]))
    strip = lambda vs: [{k: v for k, v in x.items() if k != "loss"} for x in vs]
    check(strip(threaded["validations"]) == strip(alone["validations"]),
          "validation: %s vs %s" % (threaded["validations"], alone["validations"]))
    check(threaded.get("watched") == alone.get("watched"),
          "watched: %s vs %s" % (threaded.get("watched"), alone.get("watched")))
    print("the two engines: %d of %d steps' losses differ, by at most %.2g relative; validation and watched equal" % (
        len(steps), STEPS, worst))


def main():
    out = write_page()
    port = free_port()
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "tools", "serve_isolated.py"), out,
                               "--port", str(port)], stdout=subprocess.PIPE, text=True)
    driver, profile = start_chromium("attnlab-threads-")
    try:
        check("serving" in server.stdout.readline(), "serve_isolated.py started")
        choice, threaded = train(driver, "http://127.0.0.1:%d/index.html" % port, 2)
        cores = driver.execute_script("return navigator.hardwareConcurrency;")
        check(choice["isolated"] is True, "the served page is cross-origin isolated")
        check(choice["threads"] == str(cores) and "threaded engine" in choice["text"],
              "served, it says it trains on %s threads with the threaded engine: %s" % (cores, choice["text"]))
        check(threaded.get("threads") == 2, "the threaded engine ran 2 threads (train.threads=2): %s" % threaded.get("threads"))
        load_threaded = os.getloadavg()[0]
        _, again = train(driver, "http://127.0.0.1:%d/index.html" % port, 2)
        steps, _ = differing_steps(threaded, again)
        check(not steps and threaded["validations"] == again["validations"],
              "2 threads twice: the same bits (steps differing: %s)" % steps[:10])
        disk, alone = train(driver, "file://" + os.path.join(out, "index.html"), 1)
        check(disk["isolated"] is False and disk["threads"] == "1" and "opened from disk" in disk["text"],
              "from disk it says one thread, and why: %s" % disk["text"])
        check(alone.get("threads") == 1, "the one-thread engine ran one thread: %s" % alone.get("threads"))
        compare_builds(threaded, alone)
        _, served_one = train(driver, "http://127.0.0.1:%d/index.html" % port, 1)
        steps, _ = differing_steps(served_one, alone)
        check(served_one.get("threads") == 1 and not steps and served_one["validations"] == alone["validations"],
              "served and asked for train.threads=1, the page trains on its own engine, as from disk, bit for bit "
              "(threads %s, steps differing: %s)" % (served_one.get("threads"), steps[:10]))
        # The threaded engine starts for any thread count a caller gives it, one and none included: Emscripten 3.1.6
        # preloads its Web Workers (PTHREAD_POOL_SIZE) and waits for all of them, so a pool of none never resolved.
        for options in ({"threads": 1}, {}, {"threads": 2}):
            started = engine_starts(driver, "http://127.0.0.1:%d/index.html" % port, options)
            check(started == "resolved", "the threaded engine starts with %s: %s" % (json.dumps(options), started))
        print("copy task, tokens/s: 2 threads %.0f (load average %.2f), 1 thread %.0f (load average %.2f)" % (
            tokens_per_second(threaded), load_threaded, tokens_per_second(alone), os.getloadavg()[0]))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
        stop(server)
    sys.exit(checks.finish())


if __name__ == "__main__":
    main()
