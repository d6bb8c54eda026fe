#!/usr/bin/env python3
"""explorer_browser_test.py — the attention explorer (src/inspect/pages/explorer_page.h) in a real browser.

Drives Debian's headless Chromium through chromium-driver and python3-selenium, on the pages tests/inspect/explorer_runs.sh
wrote for five tiny trained runs (every attention kind among them), opened from disk:
  * the page loads with no console error and fetches nothing (no resource entry at all: it works offline);
  * head view: pointing at a query token keeps exactly its lines (as many as its weights ≥ 0.01 in
    attention.json), clicking pins them, a head's toggle removes that head's lines;
  * model view: a thumbnail opens large; matrix view: every head's picture is drawn and reads out a weight;
  * decoding view: stepping shows the step's cross-attention row and five likeliest tokens as attention.json has
    them; with --beam 3 the kept/finished/dropped hypotheses;
  * neuron view, for every map type of every run: the weights shown are attention.json's, the softmax (or the
    kind's own normalisation) of the recorded stages gives them again, and q·k × scale gives the recorded scores;
    local_m and local_p show their centre, window (the keys outside it greyed, the centre marked) and local_p its
    Gaussian, hard attention its distribution and chosen key (the one key of its row at argmax), all as recorded;
  * the local and hard runs' model, matrix and decoding views draw attention.json's maps;
  * the compare view of `attnlab attention --compare`, offline: both runs' translations, and each picture the
    mean of the heads of its run's map;
  * a page written for a sentence holding "<!--<script>", "</script>", "&", U+2028 and U+2029 draws every view:
    its data is read back whole and no element was injected (the embedding escapes them, json_for_script);
  * against a running `attnlab serve`: submitting a sentence draws new maps, for either run, and the compare
    view shows both runs on one sentence;
  * screenshots of every view are not blank (tests/inspect/png_not_blank.py); with --screenshots DIR they are kept there.
Exits 77 (skipped) when selenium, chromium or chromedriver is missing.
  * the flow view of every run and the stale-answer and busy-button checks under serve (flow_browser_checks.py);
  * every view walked by keyboard alone, legends and explanations, the page's state in its address, saved
    pictures, decoder rows labelled alike in every mode, unknown words shown as typed, only the shown view drawn
    (explorer_access_checks.py); the cloze view offline and under serve (cloze_browser_checks.py);
  * under serve, a 150-word sentence translated and drawn in at most 3 s (the tiny dot run; printed with the
    share of the server's answer and of the drawing), and a URL holding a sentence and a view shows them;
  * under serve, the form takes exactly the server's limits and says them, and the page runs under its
    Content-Security-Policy, which stops a script put into it (serve_page_checks.py);
    usage: explorer_browser_test.py ATTNLAB_BINARY SOURCE_DIR RUNS_DIR WORK_DIR [--screenshots DIR]
                                    [--walk ATTENTION_DIR] [--beam-page ATTENTION_DIR]
"""
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, body, console_errors, free_port, start_chromium, stop  # noqa: E402

try:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    print("SKIP: python3-selenium is not installed (tools/install-deps.sh installs it)")
    sys.exit(77)
from flow_browser_checks import check_flow, check_stale_answer, time_long_sentence  # noqa: E402
from explorer_access_checks import (VIEWS, address, head_labels, key_starts, keyboard_walk, lazy_drawing,  # noqa: E402
                                    legends_and_hints, picture, press, tab_to, unknown_word)
from cloze_browser_checks import check_cloze_page, check_cloze_serve  # noqa: E402
from serve_page_checks import check_serve_form  # noqa: E402
from matrix_browser_checks import picture as matrix_picture, point_at, wrong_pixels  # noqa: E402
from neuron_browser_checks import neuron_checks  # noqa: E402

attnlab, source_dir, runs_dir, work = sys.argv[1:5]

def option(name):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


# --screenshots DIR keeps the screenshots there (docs/images/); --walk PAGE and --beam-page PAGE take the views'
# walk-through and the beam-search checks on other `attnlab attention` folders (a better-trained run's).
screenshots_out = option("--screenshots")
walk_page = option("--walk") or os.path.join(runs_dir, "dot-page")
beam_page = option("--beam-page") or os.path.join(runs_dir, "dot-beam-page")
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not chromium or not os.path.exists(chromedriver):
    print("SKIP: chromium or chromium-driver is not installed (tools/install-deps.sh installs them)")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
checks = Checklist("explorer browser")
check = checks.check



def start_browser():
    return start_chromium("explorer-chrome-")


def wait(driver, condition, what, seconds=10):
    try:
        WebDriverWait(driver, seconds).until(lambda d: condition(d))
        return True
    except Exception:
        return check(False, "timed out waiting for " + what)


def open_page(driver, url, label):
    driver.get("about:blank")   # a fresh page: a URL that differs only after "#" would not load again
    driver.get(url)
    if not wait(driver, lambda d: body(d, "data-explorer-ready") == "1", label + " to draw its views"):
        print(driver.current_url, driver.execute_script("return document.body.outerHTML.slice(0, 200)"), driver.get_log("browser"))
    check(not console_errors(driver), label + ": console errors " + repr(console_errors(driver)))


def view(driver, name):
    driver.find_element(By.CSS_SELECTOR, '#tabs button[data-view="%s"]' % name).click()
    wait(driver, lambda d: body(d, "data-view") == name, "the " + name + " view")


def click(driver, selector):
    driver.find_element(By.CSS_SELECTOR, selector).click()


def visible_lines(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('svg.headview line')).filter(function (l) {"
        " return l.style.display !== 'none'; }).map(function (l) {"
        " return [Number(l.dataset.q), Number(l.dataset.k), Number(l.dataset.head)]; });")


def screenshot(driver, name):
    path = os.path.join(work, name + ".png")
    driver.save_screenshot(path)
    blank = subprocess.run(["/usr/bin/python3", os.path.join(source_dir, "tests", "inspect", "png_not_blank.py"), path],
                           capture_output=True, text=True)
    check(blank.returncode == 0, name + ".png is blank: " + blank.stdout.strip())
    if screenshots_out:
        os.makedirs(screenshots_out, exist_ok=True)
        shutil.copy(path, os.path.join(screenshots_out, "explorer-" + name + ".png"))


def maps_of(data, kind):
    return sorted([m for m in data["maps"] if m["type"] == kind], key=lambda m: m["layer"])


def close(a, b, tolerance):
    return abs(a - b) <= tolerance * (1 + abs(b))


def check_neuron(driver, data, label):
    neuron_checks(driver, data, label, check, view, click)


def other_views(driver, data, label):
    """Model, matrix and decoding views of a run: every picture drawn, each map's rows as attention.json has them
    (hard attention: its distribution a), the decoding view's cross-attention row."""
    view(driver, "model")
    click(driver, '#view-model .seg button[data-value="all"]')
    thumbs = len(driver.find_elements(By.CSS_SELECTOR, "figure.thumb"))
    check(thumbs == sum(m["heads"] + 1 for m in data["maps"]), label + ": the model view has %d thumbnails" % thumbs)
    view(driver, "matrix")
    check(body(driver, "data-maps-ready") == str(sum(m["heads"] for m in data["maps"])), label + ": matrix pictures")
    for m, the_map in enumerate(data["maps"]):
        wrong, cells = wrong_pixels(driver, matrix_picture(driver, "%d/0" % m), the_map["weights"][0])
        check(cells and not wrong, "%s: the matrix view of map %d head 0 is not attention.json's: %r" % (label, m, wrong))
    view(driver, "decoding")
    cross = maps_of(data, "cross")[0]
    row = [float(td.get_attribute("data-w")) for td in
           driver.find_elements(By.CSS_SELECTOR, '#decode-row tr[data-layer="0"][data-head="0"] td')]
    check(row == cross["weights"][0][0], label + ": step 1's cross-attention row is row 0 of layer 0, head 0")


def hostile_page(driver):
    """A page written by `attnlab attention` for a sentence made to end or blank its scripts still renders."""
    sentence = "a girl <!--<script> </script> & <b>bold</b> \u2028 \u2029 -->"
    page_dir = os.path.join(work, "hostile-page")
    written = subprocess.run([attnlab, "attention", "--run", os.path.join(runs_dir, "dot"), "--text", sentence,
                              "--out", page_dir], capture_output=True, text=True)
    if not check(written.returncode == 0, "attention for a hostile sentence: " + written.stderr.strip()):
        return
    data = json.load(open(os.path.join(page_dir, "attention.json")))
    open_page(driver, "file://" + os.path.join(page_dir, "index.html"), "hostile sentence")
    embedded = driver.execute_script("return JSON.parse(document.getElementById('explorer-data').textContent)")
    check(embedded == data and data["source"] == sentence, "hostile sentence: the page's data is attention.json's")
    scripts = driver.execute_script("return document.scripts.length")
    bold = driver.execute_script("return document.querySelectorAll('b').length")
    # config, data, compared, film and the page's one script (explorer.html)
    check(scripts == 5 and bold == 0, "hostile sentence: %d scripts (expected 5), %d <b> injected" % (scripts, bold))
    check(sentence.split()[0] in driver.title and "<b>" in driver.title, "hostile sentence: the title %r" % driver.title)
    other_views(driver, data, "hostile sentence")
    check(not console_errors(driver), "hostile sentence: console errors " + repr(console_errors(driver)))
    screenshot(driver, "hostile")

def walk_through(driver, page_dir, label, shots):
    """The dot run's page: every view exercised, and its screenshots."""
    data = json.load(open(os.path.join(page_dir, "attention.json")))
    open_page(driver, "file://" + os.path.join(page_dir, "index.html"), label)
    check(driver.execute_script("return performance.getEntriesByType('resource').length") == 0,
          label + ": the page fetched something")

    # Head view, cross-attention of layer 0 (the defaults): point at query 1.
    cross = maps_of(data, "cross")[0]
    all_lines = visible_lines(driver)
    expected = sorted((1, j, h) for h in range(cross["heads"]) for j, w in enumerate(cross["weights"][h][1]) if w >= 0.01)
    check(len(all_lines) > len(expected) > 0, label + ": head view has %d lines" % len(all_lines))
    token = driver.find_element(By.CSS_SELECTOR, 'svg.headview text.tok[data-side="q"][data-index="1"]')
    ActionChains(driver).move_to_element(token).perform()
    check(sorted(tuple(x) for x in visible_lines(driver)) == expected,
          label + ": pointing at query 1 keeps %d lines, expected its %d" % (len(visible_lines(driver)), len(expected)))
    ActionChains(driver).move_to_element(driver.find_element(By.ID, "sentence")).perform()
    check(len(visible_lines(driver)) == len(all_lines), label + ": leaving the token brings every line back")
    token.click()
    ActionChains(driver).move_to_element(driver.find_element(By.ID, "sentence")).perform()
    check(sorted(tuple(x) for x in visible_lines(driver)) == expected, label + ": a click pins query 1's lines")
    screenshot(driver, shots + "head")
    driver.find_element(By.CSS_SELECTOR, 'svg.headview text.tok[data-side="q"][data-index="1"]').click()   # unpin
    click(driver, 'button.chip[data-head="1"]')
    lines = visible_lines(driver)
    check(lines and all(head != 1 for _, _, head in lines), label + ": head 1 toggled off leaves none of its lines")
    click(driver, 'button.chip[data-head="1"]')
    click(driver, '#view-head .seg button[data-value="all"]')
    parts = driver.execute_script("return Array.from(new Set(Array.from(document.querySelectorAll("
                                  "'svg.headview line')).map(function (l) { return l.dataset.part; })))")
    check(sorted(parts) == ["cross", "decoder_self", "encoder_self"], label + ": 'all three' draws " + repr(parts))
    screenshot(driver, shots + "head-all")

    # Model view: a thumbnail opens large.
    view(driver, "model")
    click(driver, '#view-model .seg button[data-value="cross"]')
    click(driver, 'figure.thumb[data-thumb="cross/1/1"]')
    modal = driver.find_element(By.ID, "modal")
    check(modal.is_displayed() and modal.get_attribute("data-open") == "cross/1/1", label + ": the thumbnail opened")
    cells = len(driver.find_elements(By.CSS_SELECTOR, "#modal-body rect[data-i]"))
    check(cells == len(cross["weights"][0]) * len(cross["weights"][0][0]), label + ": the large map has %d cells" % cells)
    screenshot(driver, shots + "model-open")
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    check(not modal.is_displayed(), label + ": Escape closes the large map")
    screenshot(driver, shots + "model")

    # Matrix view: every head's picture, and a read-out.
    view(driver, "matrix")
    heads = sum(m["heads"] for m in data["maps"])
    check(body(driver, "data-maps-ready") == str(heads), label + ": %s of %d pictures" % (body(driver, "data-maps-ready"), heads))
    point_at(driver, matrix_picture(driver, "0/0"), 1, 2)
    tip = driver.find_element(By.ID, "tooltip").text
    expected_tip = "query \u201c%s\u201d \u2192 key \u201c%s\u201d: %.3f" % (
        data["tokens"]["source"][1], data["tokens"]["source"][2], data["maps"][0]["weights"][0][1][2])
    check(tip == expected_tip, label + ": the read-out says %r, expected %r" % (tip, expected_tip))
    screenshot(driver, shots + "matrix")

    # Decoding view: step 2 (index 1).
    view(driver, "decoding")
    check(body(driver, "data-step") == "0", label + ": decoding starts at step 1")
    click(driver, "#step-next")
    wait(driver, lambda d: body(d, "data-step") == "1", "step 2")
    shown = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".top5 .tokname")]
    check(shown == [c["token"] for c in data["decoding"]["steps"][1]["likeliest"]],
          label + ": step 2's likeliest tokens %r" % shown)
    row = [float(td.get_attribute("data-w")) for td in
           driver.find_elements(By.CSS_SELECTOR, '#decode-row tr[data-layer="0"][data-head="0"] td')]
    check(row == cross["weights"][0][1], label + ": step 2's cross-attention row is row 1 of layer 0, head 0")
    screenshot(driver, shots + "decoding")

    check_neuron(driver, data, label)
    click(driver, '#view-neuron .seg button[data-value="encoder_self"]')
    click(driver, '#view-neuron .queries button[data-query="1"]')
    screenshot(driver, shots + "neuron")
    check_flow(driver, data, label, check, view, click, lambda d, name: screenshot(d, shots + name))
    check(not console_errors(driver), label + ": console errors " + repr(console_errors(driver)))



def linked_sentence(driver, port, sentence):
    """A URL holding a sentence, a run and a view: the served page translates it and shows that view."""
    driver.get("about:blank")
    driver.get("http://127.0.0.1:%d/#view=matrix&run=1&text=%s" % (port, urllib.parse.quote(sentence)))
    wait(driver, lambda d: body(d, "data-explorer-ready") == "1", "the linked sentence", 30)
    check(body(driver, "data-shown-text") == sentence and body(driver, "data-view") == "matrix" and
          "additive" in driver.find_element(By.ID, "kinds").text and
          driver.find_elements(By.CSS_SELECTOR, "#view-matrix svg[data-map]"),
          "serve: a URL with text, run 1 and view=matrix shows that sentence through run 1 in the matrix view")
    check("text=" in driver.execute_script("return location.hash"), "serve: the address keeps the sentence")


def access_checks(driver):
    """Keyboard, legends, address, pictures, labels, unknown words, lazy drawing (explorer_access_checks.py)."""
    started = time.time()
    dot = json.load(open(os.path.join(walk_page, "attention.json")))
    lazy_drawing(driver, check, open_page, "file://" + os.path.join(walk_page, "index.html"), "dot")
    head_labels(driver, check, dot, "dot")
    address(driver, check, open_page, walk_page, dot, "dot")
    compare_dir = os.path.join(runs_dir, "compare-page")
    compare_url = "file://" + os.path.join(compare_dir, "index.html")
    print("access checks: labels and address in %.0f s" % (time.time() - started), flush=True)
    keyboard_walk(driver, check, compare_url, json.load(open(os.path.join(compare_dir, "attention.json"))), "keyboard")
    print("access checks: the keyboard walk done at %.0f s" % (time.time() - started), flush=True)
    check(not console_errors(driver), "keyboard walk: console errors " + repr(console_errors(driver)))
    open_page(driver, compare_url, "legends")
    legends_and_hints(driver, check, None, "compare page")
    for name in VIEWS:
        open_page(driver, compare_url, "picture of " + name)
        picture(driver, check, work, source_dir, name, "picture")
    print("access checks: legends and pictures done at %.0f s" % (time.time() - started), flush=True)
    unknown_word(driver, check, attnlab, runs_dir, work, open_page)
    check_cloze_page(driver, check, open_page, runs_dir, (press, tab_to, key_starts))
    check(not console_errors(driver), "access checks: console errors " + repr(console_errors(driver)))


driver, profile = start_browser()
try:
    walk_through(driver, walk_page, "dot", "")
    access_checks(driver)

    for run in ("mixed", "other", "local", "hard"):
        page = os.path.join(runs_dir, run + "-page")
        data = json.load(open(os.path.join(page, "attention.json")))
        open_page(driver, "file://" + os.path.join(page, "index.html"), run)
        for kind in ("encoder_self", "decoder_self", "cross", "all"):
            click(driver, '#view-head .seg button[data-value="%s"]' % kind)
            check(len(visible_lines(driver)) > 0, run + ": the head view draws " + kind)
        if run in ("local", "hard"):
            other_views(driver, data, run)
        check_neuron(driver, data, run)
        check_flow(driver, data, run, check, view, click)
        check(not console_errors(driver), run + ": console errors " + repr(console_errors(driver)))
        if run in ("mixed", "local", "hard"):
            screenshot(driver, {"mixed": "neuron-additive", "local": "neuron-local_p", "hard": "neuron-hard"}[run])

    # Beam search: the hypotheses of step 1, as attention.json has them.
    data = json.load(open(os.path.join(beam_page, "attention.json")))
    open_page(driver, "file://" + os.path.join(beam_page, "index.html"), "beam")
    view(driver, "decoding")
    fates = [tr.get_attribute("data-fate") for tr in driver.find_elements(By.CSS_SELECTOR, "#beam-table tr[data-fate]")]
    check(fates == [c["fate"] for c in data["decoding"]["beam_steps"][0]] and fates.count("kept") <= data["decoding"]["beam"],
          "beam: step 1 shows %r" % fates)
    screenshot(driver, "decoding-beam")

    # The compare view offline: `attnlab attention --run dot --compare local`, opened from disk.
    data = json.load(open(os.path.join(runs_dir, "compare-page", "attention.json")))
    other = json.load(open(os.path.join(runs_dir, "compare-page", "compared.json")))
    open_page(driver, "file://" + os.path.join(runs_dir, "compare-page", "index.html"), "compare offline")
    view(driver, "compare")
    heading = driver.find_element(By.CSS_SELECTOR, "#compare-table tr").text
    check("dot" in heading and "local" in heading and data["target"] in heading and other["target"] in heading,
          "compare offline: the heading %r names both runs and their translations" % heading)
    cells = driver.execute_script(
        "return Array.from(document.querySelectorAll('#compare-table svg')).map(function (svg) {"
        " return Array.from(svg.querySelectorAll('rect[data-i]')).map(function (r) { return Number(r.dataset.w); }); });")
    expected = []
    for kind in ("encoder_self", "decoder_self", "cross"):
        for layer in range(2):
            for side in (data, other):
                the_map = [m for m in side["maps"] if m["type"] == kind and m["layer"] == layer][0]
                expected.append([sum(the_map["weights"][h][i][j] for h in range(the_map["heads"])) / the_map["heads"]
                                 for i in range(len(the_map["weights"][0])) for j in range(len(the_map["weights"][0][0]))])
    check(len(cells) == 12 and all(len(c) == len(e) and all(close(a, b, 1e-9) for a, b in zip(c, e))
                                   for c, e in zip(cells, expected)),
          "compare offline: %d pictures; each the mean of heads of its run's map" % len(cells))
    check(not console_errors(driver), "compare offline: console errors " + repr(console_errors(driver)))
    screenshot(driver, "compare-offline")
    hostile_page(driver)

    # attnlab serve: the same page, live.
    port = free_port()
    server = subprocess.Popen([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--run",
                               os.path.join(runs_dir, "mixed"), "--port", str(port), "--max-answer-mb", "200"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        check("http://127.0.0.1:%d/" % port in line, "serve says where it listens: " + line.strip())
        driver.get("http://127.0.0.1:%d/" % port)
        wait(driver, lambda d: body(d, "data-explorer-ready") == "0", "the served page")
        check(driver.find_element(By.ID, "ask").is_displayed(), "serve: the page has its form")
        # Sentences of the training data: every word is in the vocabulary, so the page shows them as sent.
        train = [line.strip() for line in open(os.path.join(runs_dir, "data", "train.en"))][:2]
        for run_index, text in ((0, train[0]), (1, train[1])):
            renders = int(body(driver, "data-renders"))
            Select(driver.find_element(By.ID, "ask-run")).select_by_value(str(run_index))
            box = driver.find_element(By.ID, "ask-text")
            box.clear()
            box.send_keys(text)
            box.send_keys(Keys.ENTER)
            wait(driver, lambda d: int(body(d, "data-renders")) > renders and
                 d.find_element(By.ID, "ask-status").get_attribute("data-state") == "done", "serve's answer", 30)
            shown = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#sentence .row:first-child code")]
            check(shown == text.split(), "serve: the page shows the source %r, sent %r" % (shown, text))
            check(len(visible_lines(driver)) > 0, "serve: new maps are drawn (the head view's lines)")
            kind = driver.find_element(By.ID, "kinds").text
            check(("additive" if run_index else "scaled_dot") in kind, "serve: run %d's kinds: %s" % (run_index, kind))
        screenshot(driver, "serve")
        # Compare view: the same sentence through both runs, side by side.
        Select(driver.find_element(By.ID, "ask-run")).select_by_value("0")
        Select(driver.find_element(By.ID, "ask-compare")).select_by_value("1")
        renders = int(body(driver, "data-renders"))
        driver.find_element(By.ID, "ask-text").send_keys(Keys.ENTER)
        wait(driver, lambda d: int(body(d, "data-renders")) > renders, "the compared answer", 30)
        view(driver, "compare")
        pictures = len(driver.find_elements(By.CSS_SELECTOR, "#compare-table svg"))
        heading = driver.find_element(By.CSS_SELECTOR, "#compare-table tr").text
        check(pictures == 12 and "dot" in heading and "mixed" in heading,
              "compare: %d pictures (expected 6 maps × 2 runs) under %r" % (pictures, heading))
        screenshot(driver, "compare")
        box = driver.find_element(By.ID, "ask-text")
        box.clear()
        box.send_keys(Keys.ENTER)
        wait(driver, lambda d: d.find_element(By.ID, "ask-status").get_attribute("data-state") == "error", "an error")
        check("empty" in driver.find_element(By.ID, "ask-status").text, "serve: an empty sentence is refused on the page")
        Select(driver.find_element(By.ID, "ask-compare")).select_by_value("")
        check_stale_answer(driver, body, wait, check, train[0])
        seconds = time_long_sentence(driver, body, wait, 150, train[0], 0)
        split = json.loads(body(driver, "data-timing") or "{}")
        size = driver.execute_script("return JSON.stringify(window.attnlabExplorer.data).length")
        print("serve: 150 words translated and drawn in %.2f s (the tiny dot run, no gradient attribution): the "
              "answer %.2f s, drawing the head view %.2f s, %.1f MB of JSON; load average %s" %
              (seconds, split.get("answer", -1), split.get("draw", -1), size / 1e6, open("/proc/loadavg").read().split()[0]))
        check(seconds <= 3, "serve: 150 words show in %.2f s, more than 3 s" % seconds)
        linked_sentence(driver, port, train[1])
        errors = [e for e in console_errors(driver) if "400" not in e]   # the refused request itself is logged
        check(not errors, "serve: console errors " + repr(errors))
    finally:
        code = stop(server)
        check(code == 0, "serve stops on SIGTERM with exit 0 (got %r)" % code)
    check_cloze_serve(driver, check, attnlab, runs_dir, body, wait)
    check_serve_form(driver, check, attnlab, runs_dir, body, wait)
finally:
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)

sys.exit(checks.finish())
