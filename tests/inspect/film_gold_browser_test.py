#!/usr/bin/env python3
"""film_gold_browser_test.py — the gold on every map and training as a film (src/inspect/align/gold_on_picture.h,
src/inspect/maps/film.h, the explorer's gold.js and film.js), in headless Chromium, on a tiny toy-en-fr run with a
checkpoint every 5 steps:
  * `attnlab attention` on a test sentence with its reference: every cross-attention picture of the matrix view, of
    the model view (thumbnails and the large picture) and every decoder × source picture of the flow view outlines
    exactly the cells of the sentence's .align line (sure
    solid, possible dashed), each with the AER attention.json gives it, under a legend; a sentence of no corpus line
    draws no outline and says why;
  * the film (--checkpoints all) has ≥ 20 frames; the slider, moved by keyboard, shows a frame whose weights are
    `attnlab attention --checkpoint STEP --target REF --json`'s for that step; play advances the frames; the frame
    is in the address and restored from it; the view saves as SVG; no frame takes over 100 ms to show;
  * under `attnlab serve`: POST /api/film answers the film, its frames the same weights; the film view fetches it;
  * clear messages for --checkpoints with another word or without --out, a step with no checkpoint, --json with
    --terminal, and a serve film request without "target".
    usage: film_gold_browser_test.py ATTNLAB_BINARY WORK_DIR      (exits 77, skipped, without selenium/chromium)"""
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, body, console_errors, free_port, stop  # noqa: E402

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError:
    print("SKIP: python3-selenium is not installed (tools/install-deps.sh installs it)")
    sys.exit(77)

attnlab, work = os.path.abspath(sys.argv[1]), sys.argv[2]
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium or not os.path.exists("/usr/bin/chromedriver"):
    print("SKIP: chromium or chromium-driver is not installed")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.chdir(work)
checks = Checklist("film_gold_browser_test")
check = checks.check


def run(*args, ok=True):
    done = subprocess.run([attnlab, *args], capture_output=True, text=True)
    if ok and done.returncode != 0:
        sys.exit("FAIL: attnlab %s\n%s" % (" ".join(args), done.stderr))
    return done


def expect_error(what, needle, *args):
    done = run(*args, ok=False)
    check(done.returncode != 0 and needle in done.stderr, "%s: exit %d, said %r" % (what, done.returncode, done.stderr[-300:]))


# A tiny toy-en-fr run: 100 steps, a checkpoint every 5 (20 step checkpoints), about 20 s.
run("corpus", "--task", "toy-en-fr", "--out", "data", "--size", "600")
with open("tiny.yaml", "w") as f:
    f.write("""data: {train_src: data/train.en, train_tgt: data/train.fr, valid_src: data/valid.en, valid_tgt: data/valid.fr,
       test_src: data/test.en, test_tgt: data/test.fr}
tokenizer: {kind: word, shared: true}
model: {d_model: 32, heads: 2, d_ff: 64, encoder_layers: 1, decoder_layers: 2, dropout: 0}
train: {max_steps: 100, batch_tokens: 600, schedule: constant, lr: 0.003, warmup_steps: 2, valid_every: 50,
        valid_samples: 0, checkpoint_every: 5, keep_last: 40, threads: 1, log_every: 10}
""")
started = time.time()
run("train", "--config", "tiny.yaml", "--run", "run")
sources, targets = open("data/test.en").read().split("\n"), open("data/test.fr").read().split("\n")
aligns = open("data/test.align").read().split("\n")
# line, 1-based: the first test pair of 5 to 10 words with a possible link
line = next(k + 1 for k, a in enumerate(aligns) if "?" in a and 5 <= len(sources[k].split()) <= 10)
source, reference, pharaoh = sources[line - 1], targets[line - 1], aligns[line - 1]
gold = {}
for link in pharaoh.split():
    kind, (i, j) = ("possible", link.split("?")) if "?" in link else ("sure", link.split("-"))
    gold[(int(j), int(i))] = kind   # (target word = decoder row, source word = column): word tokenizer, tokens = words
run("attention", "--run", "run", "--text", source, "--target", reference, "--out", "page", "--checkpoints", "all",
    "--ig-steps", "2")
run("attention", "--run", "run", "--text", "zorblax quux the .", "--out", "nogold")
print("trained and recorded in %.0f s" % (time.time() - started))

# --- bad input: one clear message each ---
expect_error("--checkpoints with another word", "--checkpoints: some not in {all}",
             "attention", "--run", "run", "--text", source, "--out", "x", "--checkpoints", "some")
expect_error("--checkpoints without --out", "--checkpoints all writes the page's film view and film.json: give --out",
             "attention", "--run", "run", "--text", source, "--json", "--checkpoints", "all")
expect_error("a step with no checkpoint", "has no checkpoint of step 7 ", "attention", "--run", "run", "--text", source,
             "--json", "--checkpoint", "7")
expect_error("--json with --terminal", "--json and --terminal both write to stdout",
             "attention", "--run", "run", "--text", source, "--json", "--terminal")

data = json.load(open("page/attention.json"))
film = json.load(open("page/film.json"))
check(data["gold"]["found"] and data["gold"]["pharaoh"] == pharaoh and data["gold"]["line"] == line,
      "attention.json's gold is test.align line %d" % line)
check(len(film["frames"]) >= 20, "the film has %d frames, at least 20" % len(film["frames"]))
check(json.load(open("nogold/attention.json"))["gold"]["found"] is False, "a typed sentence has no gold")

options = webdriver.ChromeOptions()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
page = "file://" + os.path.abspath("page/index.html")


def outlines(svg):
    """The gold outlines of one picture: {(row, column): kind}."""
    return {(int(r.get_attribute("data-t")), int(r.get_attribute("data-s"))): r.get_attribute("data-gold")
            for r in svg.find_elements(By.CSS_SELECTOR, "g.gold rect")}


def open_view(url):
    driver.get("about:blank")
    driver.get(url)
    time.sleep(0.5)


try:
    # --- the gold on the matrix view's cross-attention pictures and the flow view's ---
    open_view(page + "#view=matrix")
    pictures = driver.find_elements(By.CSS_SELECTOR, "#view-matrix svg[data-gold-cells]")
    cross = [m for m in data["maps"] if m["type"] == "cross"]
    check(len(pictures) == len(cross) * (cross[0]["heads"] + 1) + (cross[0]["heads"] + 1 if len(cross) > 1 else 0),
          "every cross-attention picture of the matrix view is outlined (%d)" % len(pictures))
    check(all(outlines(p) == gold for p in pictures), "the outlined cells are test.align line %d's links" % line)
    aers = driver.find_elements(By.CSS_SELECTOR, "#view-matrix .aer[data-aer]")
    expected = data["gold"]["scores"]
    check(len(aers) == len(cross) * (cross[0]["heads"] + 1) and
          all(abs(float(a.get_attribute("data-aer")) - expected[a.get_attribute("data-method")]["aer"]) < 1e-9 for a in aers),
          "each head's and each layer mean's AER is attention.json's")
    check(len(driver.find_elements(By.CSS_SELECTOR, "#view-matrix .gold-legend")) == 1, "the matrix view has the gold's legend")
    open_view(page + "#view=model&type=cross")
    thumbs = driver.find_elements(By.CSS_SELECTOR, "#view-model canvas[data-gold-cells]")
    check(len(thumbs) == len(cross) * (cross[0]["heads"] + 1) and
          all(t.get_attribute("data-gold-cells") == str(len(gold)) for t in thumbs),
          "every cross-attention thumbnail of the model view outlines the %d gold cells" % len(gold))
    driver.find_element(By.CSS_SELECTOR, "#view-model figure[data-thumb='cross/0/1']").click()
    large = driver.find_element(By.CSS_SELECTOR, "#modal-body svg[data-gold-cells]")
    check(outlines(large) == gold and driver.find_element(By.CSS_SELECTOR, "#modal-body .aer").get_attribute("data-method")
          == "cross.l0.h1", "the large picture of layer 0 head 1 outlines the gold and names its AER")
    open_view(page + "#view=flow&measure=four")
    figures = driver.find_elements(By.CSS_SELECTOR, "#view-flow svg[data-gold-cells]")
    check(len(figures) == 4 and all(outlines(f) == gold for f in figures), "the four flow pictures outline the gold")
    methods = [a.get_attribute("data-method") for a in driver.find_elements(By.CSS_SELECTOR, "#view-flow .aer[data-aer]")]
    check(methods == ["rollout", "gradient_x_input", "integrated_gradients"], "rollout and the attributions name their AER: %s" % methods)
    open_view("file://" + os.path.abspath("nogold/index.html") + "#view=matrix")
    none = driver.find_elements(By.ID, "gold-none")
    check(len(none) == 1 and "not one of the corpus's test or valid sentences" in none[0].text and
          not driver.find_elements(By.CSS_SELECTOR, "g.gold rect"), "a typed sentence: no outline, and the page says why")

    # --- the film: keyboard on the slider, the frame's weights, play, the address, SVG ---
    open_view(page + "#view=film")
    slider = driver.find_element(By.ID, "film-slider")
    last = film["frames"][-1]["step"]
    check(body(driver, "data-film-step") == str(last), "the film opens at the last checkpoint, step %s" % last)
    slider.send_keys(Keys.HOME)
    for _ in range(3):
        slider.send_keys(Keys.ARROW_RIGHT)
    frame = film["frames"][3]
    step = body(driver, "data-film-step")
    check(step == str(frame["step"]) and "frame=%s" % step in driver.current_url, "Home, then → three times: step %s" % step)
    shown = json.loads(run("attention", "--run", "run", "--text", source, "--target", reference, "--checkpoint", step,
                           "--json", "--ig-steps", "0").stdout)
    cross_at = [m for m, entry in enumerate(shown["maps"]) if entry["type"] == "cross"][-1]
    svg = driver.find_element(By.CSS_SELECTOR, "svg[data-film-picture='cross-attention layer %d head 1']" % shown["maps"][cross_at]["layer"])
    cells = {(int(r.get_attribute("data-i")), int(r.get_attribute("data-j"))): float(r.get_attribute("data-w"))
             for r in svg.find_elements(By.CSS_SELECTOR, "rect[data-i]")}
    weights = shown["maps"][cross_at]["weights"][1]
    check(len(cells) == len(weights) * len(weights[0]) and
          all(abs(cells[(i, j)] - w) < 1e-6 for i, row in enumerate(weights) for j, w in enumerate(row)),
          "the frame's weights are attnlab attention --checkpoint %s --json's" % step)
    aer = svg.find_element(By.XPATH, "..").find_element(By.CSS_SELECTOR, ".aer")
    check(abs(float(aer.get_attribute("data-aer")) - frame["scores"]["cross.l%d.h1" % shown["maps"][cross_at]["layer"]]["aer"]) < 1e-9,
          "the frame's picture names that frame's AER")
    # Each frame's time; a frame over 100 ms is shown once more (← then →) and its better time kept: the machine is
    # shared, and a compiler taking both cores for a moment is not the page's cost.
    times = []
    for _ in range(10):
        slider.send_keys(Keys.ARROW_RIGHT)
        times.append(float(body(driver, "data-film-frame-ms")))
        if times[-1] > 100:
            slider.send_keys(Keys.ARROW_LEFT)
            slider.send_keys(Keys.ARROW_RIGHT)
            times[-1] = min(times[-1], float(body(driver, "data-film-frame-ms")))
    check(max(times) <= 100, "each frame shows in at most 100 ms (slowest %.1f ms)" % max(times))
    print("film frame times (ms): %s" % times)
    slider.send_keys(Keys.HOME)
    driver.find_element(By.CSS_SELECTOR, "[data-key='film-play']").click()
    time.sleep(1.2)
    played = int(body(driver, "data-film-step"))
    check(played > film["frames"][0]["step"] and body(driver, "data-film-playing") == "1", "play advances the frames")
    driver.find_element(By.CSS_SELECTOR, "[data-key='film-play']").send_keys(Keys.ENTER)   # pause, by keyboard
    check(body(driver, "data-film-playing") == "0", "Enter on the button pauses")
    paused = body(driver, "data-film-step")
    open_view(page + "#view=film&frame=" + paused)
    check(body(driver, "data-film-step") == paused, "a link with frame=%s opens that frame" % paused)
    driver.find_element(By.CSS_SELECTOR, "[data-key='save-film']").click()
    check((body(driver, "data-picture") or "").startswith("attnlab-film.svg"), "the film view saves as SVG")
    errors = console_errors(driver)
    check(not errors, "no console error: %s" % errors[:3])

    # --- under serve: the film fetched, and the same frame ---
    port = free_port()
    server = subprocess.Popen([attnlab, "serve", "--run", "run", "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/api/runs" % port, timeout=1)
                break
            except OSError:
                time.sleep(0.1)

        def post(path, payload):
            request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), json.dumps(payload).encode(),
                                             {"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=120) as answer:
                    return answer.status, json.load(answer)
            except urllib.error.HTTPError as error:
                return error.code, json.load(error)
        status, served = post("/api/film", {"text": source, "target": reference})
        check(status == 200 and len(served["frames"]) == len(film["frames"]) and
              served["frames"][3]["weights"] == film["frames"][3]["weights"], "POST /api/film answers the same film")
        status, answer = post("/api/film", {"text": source})
        check(status == 400 and '"target" must be the translation' in answer["error"], "a film request without target: %s" % answer)
        status, answer = post("/api/translate", {"text": source})
        check(status == 200 and "found" in answer["gold"], "serve's attention.json says whether it has a gold")
        open_view("http://127.0.0.1:%d/#view=film&text=%s" % (port, urllib.request.quote(source)))
        for _ in range(300):
            if body(driver, "data-film-step"):
                break
            time.sleep(0.1)
        check(body(driver, "data-film-step") == str(last), "the served film view fetches and shows the film")
    finally:
        stop(server)
finally:
    driver.quit()
sys.exit(checks.finish())
