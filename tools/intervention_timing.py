#!/usr/bin/python3
"""intervention_timing.py — how long an intervention takes to answer, under `serve` and in the browser build (issue 46).

    /usr/bin/python3 tools/intervention_timing.py RUN [--attnlab build/release/attnlab]
                     [--engine build/wasm/web/attnlab_web.js] [--port 18093]

RUN is a trained translation run (the demo's: runs/toy-en-fr after tools/demo.sh). The 20-word sentence of the
explorer guide is translated plain and with three interventions (one cross-attention head switched off, all of them,
a source word masked) — and under `serve`, one layer swapped for checkpoint 600's — each 11 times; the first is the
warm-up, and the median, minimum and maximum of the other 10 are printed, in milliseconds, with the intervention's
log p. `serve` runs with --max-in-flight 1 and is asked over HTTP from Python; the page is the live explorer
(`attnlab attention --live`) opened from disk in headless Chromium, asked with fetch() from inside it (one thread of
WebAssembly). Needs python3-selenium, chromium and chromium-driver (tools/install-deps.sh installs them).
"""
import argparse, json, os, statistics, subprocess, tempfile, time, urllib.request

SENTENCE = "a mouse that does not look for the black horses does not eat my bananas in the beautiful churches ."
CASES = [[], ["ablate:cross:1.2"], ["ablate:cross:*"], ["mask:source:4"]]


def row(specs, times, first, answer):
    log_p = (answer.get("intervention") or {}).get("log_prob", "")
    print("  %-20s median %6.1f ms   min %6.1f   max %6.1f   first %6.1f   %s%s" % (
        ",".join(specs) or "plain", statistics.median(times), min(times), max(times), first,
        "log p %.4f" % log_p if log_p != "" else "", answer.get("error", "")))


def time_serve(attnlab, run, port):
    server = subprocess.Popen([attnlab, "serve", "--run", run, "--port", str(port), "--max-in-flight", "1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = "http://127.0.0.1:%d" % port
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(base + "/api/runs", timeout=1)
                break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit("intervention_timing.py: serve stopped: " + server.stderr.read().decode())
                time.sleep(0.2)
        print("serve (--max-in-flight 1):")
        for specs in CASES + [["swap:decoder.1=600"]]:
            ask = {"run": 0, "text": SENTENCE, "beam": 0, "ig_steps": 0}
            if specs:
                ask["interventions"] = specs
            times = []
            for i in range(11):
                request = urllib.request.Request(base + "/api/translate", data=json.dumps(ask).encode(),
                                                 headers={"Content-Type": "text/plain"})
                start = time.perf_counter()
                answer = json.loads(urllib.request.urlopen(request, timeout=120).read())
                times.append((time.perf_counter() - start) * 1000)
            row(specs, times[1:], times[0], answer)
    finally:
        server.terminate()
        server.wait()


PAGE_SCRIPT = """
var ask = arguments[0], done = arguments[arguments.length - 1];
(async function () {
  var times = [], answer = null;
  for (var i = 0; i < 11; ++i) {
    var start = performance.now();
    var reply = await fetch('api/translate', {method: 'POST', body: JSON.stringify(ask)});
    answer = await reply.json();
    times.push(performance.now() - start);
  }
  done(JSON.stringify({times: times, answer: {intervention: answer.intervention || null,
                                               error: answer.error || ''}}));
})();
"""


def time_page(attnlab, engine, run):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    out = tempfile.mkdtemp(prefix="attnlab-intervention-timing-")
    subprocess.run([attnlab, "attention", "--live", "--engine", engine, "--run", run, "--out", out], check=True,
                   capture_output=True)
    options = Options()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options)
    try:
        driver.set_script_timeout(300)
        driver.get("file://" + os.path.join(out, "index.html"))
        for _ in range(600):
            if driver.find_element("tag name", "body").get_attribute("data-live-ready") in ("1", "error"):
                break
            time.sleep(0.2)
        print("the page (browser build, one thread):")
        for specs in CASES:
            ask = {"run": 0, "text": SENTENCE, "beam": 0, "ig_steps": 0}
            if specs:
                ask["interventions"] = specs
            result = json.loads(driver.execute_async_script(PAGE_SCRIPT, ask))
            row(specs, result["times"][1:], result["times"][0], result["answer"])
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run")
    parser.add_argument("--attnlab", default="build/release/attnlab")
    parser.add_argument("--engine", default="build/wasm/web/attnlab_web.js")
    parser.add_argument("--port", type=int, default=18093)
    args = parser.parse_args()
    for needed in [args.attnlab, args.engine, os.path.join(args.run, "config.yaml")]:
        if not os.path.exists(needed):
            raise SystemExit("intervention_timing.py: %s is missing (tools/demo.sh trains the run, tools/web.sh builds "
                             "the engine)" % needed)
    with open("/proc/loadavg") as load:
        print("machine: %d cores; load %s" % (os.cpu_count(), " ".join(load.read().split()[:3])))
    time_serve(args.attnlab, args.run, args.port)
    time_page(args.attnlab, os.path.abspath(args.engine), args.run)


if __name__ == "__main__":
    main()
