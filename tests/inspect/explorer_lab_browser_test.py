#!/usr/bin/env python3
"""explorer_lab_browser_test.py — what a learner met in the explorer (issue 46, items 4 and 6), in headless Chromium.

On the dot run of tests/inspect/explorer_runs.sh (the ctest fixture explorer_runs):
  * the matrix view of a 150-word sentence pair (150 source tokens, 151 decoder positions, 27 pictures) is drawn
    in at most 3 s, as the page measures it (performance.now() around building the view and laying it out,
    <body data-matrix-ms>); every pixel of a picture is the colour of attention.json's weight there; pointing
    at a cell, or moving the keyboard's cursor onto it, names its row's and column's tokens in 12 px type beside
    the axes and reads its weight; at cell size 14 every token is written, at least 11 px tall;
  * a bad value in the address (measure=foo, step=999, layer=x, zoom=3, view=nope) is named above the views —
    the key, the value and what it may be — and the view shows its default (the flow view explains rollout,
    never "undefined");
  * under `attnlab serve`, a shared link holding a sentence and a decoding step (and a neuron query, a head-view
    pin and means, a matrix zoom) shows that step once the sentence is translated, and keeps it in the address;
  * the contrast of the decoding view (steps.js; src/inspect/maps/contrast.h): offline, the page written with
    --contrast POS:TOKEN shows attention.json's numbers and its completeness check; under serve, choosing an
    alternative asks api/contrast and shows the same numbers `attnlab attention --contrast` writes.
Exits 77 (skipped) when selenium, chromium or chromedriver is missing.
    usage: explorer_lab_browser_test.py ATTNLAB_BINARY RUNS_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, body, console_errors, free_port, start_chromium, stop, wait_for  # noqa: E402

attnlab, runs_dir, work = sys.argv[1:4]
driver, profile = start_chromium("explorer-lab-chrome-")   # exits 77 (skipped) without selenium or chromium
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from matrix_browser_checks import picture, point_at, wrong_pixels  # noqa: E402

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
checks = Checklist("explorer lab browser")
check = checks.check
WORDS = 150


def wait(driver, condition, what, seconds=20):
    return wait_for(driver, condition, seconds) or check(False, "timed out waiting for " + what)


def open_page(driver, url, label):
    driver.get("about:blank")   # a fresh page: a URL that differs only after "#" would not load again
    driver.get(url)
    wait(driver, lambda d: body(d, "data-explorer-ready") == "1", label + " to draw")


def long_pair():
    """150 words of the training data on each side: a sentence pair as long as the guide's matrix view is for."""
    def words(path):
        return " ".join(open(path).read().split()[:WORDS])
    return words(os.path.join(runs_dir, "data", "train.en")), words(os.path.join(runs_dir, "data", "train.fr"))


def write_page(name, *arguments):
    out = os.path.join(work, name)
    done = subprocess.run([attnlab, "attention", "--run", os.path.join(runs_dir, "dot"), "--out", out] + list(arguments),
                          capture_output=True, text=True)
    check(done.returncode == 0, "attnlab attention %s: %s" % (" ".join(arguments)[:60], done.stderr.strip()))
    return out, json.load(open(os.path.join(out, "attention.json")))


def matrix_view(driver):
    """The matrix view of 150 words: its time, its pixels, its labels on pointing, by keyboard and at cell size 14."""
    source, target = long_pair()
    page, data = write_page("long-page", "--text", source, "--target", target, "--ig-steps", "0")
    open_page(driver, "file://" + os.path.join(page, "index.html") + "#view=head", "150 words")
    started = time.time()
    driver.find_element(By.CSS_SELECTOR, '#tabs button[data-view="matrix"]').click()
    wait(driver, lambda d: body(d, "data-view") == "matrix" and body(d, "data-matrix-ms"), "the matrix view")
    seconds = time.time() - started
    in_page = float(body(driver, "data-matrix-ms")) / 1000
    heads = sum(m["heads"] for m in data["maps"])
    print("matrix view, %d x %d tokens: drawn in %.2f s as the page measures it (%.2f s from the click, seen from "
          "outside); load average %s" % (len(data["tokens"]["source"]), len(data["tokens"]["target_output"]), in_page,
                                         seconds, open("/proc/loadavg").read().split()[0]), flush=True)
    check(in_page <= 3, "the matrix view of %d words takes %.2f s to draw, more than 3 s" % (WORDS, in_page))
    check(body(driver, "data-maps-ready") == str(heads), "the matrix view draws %s pictures of one head, expected %d"
          % (body(driver, "data-maps-ready"), heads))
    cross = [m for m, the_map in enumerate(data["maps"]) if the_map["type"] == "cross"][0]
    weights = data["maps"][cross]["weights"][1]
    wrong, cells = wrong_pixels(driver, picture(driver, "%d/1" % cross), weights)
    check(cells == len(weights) * len(weights[0]) and not wrong,
          "the cross-attention picture's %d cells are attention.json's colours (wrong: %r)" % (cells, wrong))
    pointed_labels(driver, data, cross, weights)
    every_label(driver, data, cross)
    check(not console_errors(driver), "matrix view: console errors " + repr(console_errors(driver)))


def pointed_labels(driver, data, cross, weights):
    """Pointing at a cell, and the keyboard's cursor, name its tokens (12 px) and read its weight."""
    svg = picture(driver, "%d/1" % cross)
    check(svg.get_attribute("data-labels") == "pointed", "at 150 words the picture writes only the pointed labels")
    i, j = 70, 33
    point_at(driver, svg, i, j)
    labels = driver.execute_script(
        "return Array.from(arguments[0].querySelectorAll('text.pointed')).map(function (t) {"
        " return [t.textContent, Number(t.getAttribute('font-size'))]; });", svg)
    row, col = data["tokens"]["target_output"][i], data["tokens"]["source"][j]
    check(svg.get_attribute("data-cursor") == "%d/%d" % (i, j) and labels == [[row, 12], [col, 12]],
          "pointing at cell (%d, %d) names %r (expected %r and %r at 12 px)" % (i, j, labels, row, col))
    readout = body(driver, "data-readout") or ""
    check(readout == "query \u201c%s\u201d \u2192 key \u201c%s\u201d: %.3f" % (row, col, weights[i][j]),
          "pointing reads %r, expected the weight %.3f" % (readout, weights[i][j]))
    driver.execute_script("arguments[0].focus()", svg)
    svg.send_keys(Keys.PAGE_DOWN, Keys.ARROW_RIGHT, Keys.END)
    cursor = svg.get_attribute("data-cursor")
    ci, cj = [int(x) for x in cursor.split("/")]
    labels = [t.text for t in svg.find_elements(By.CSS_SELECTOR, "text.pointed")]
    check(cj == len(weights[0]) - 1 and ci > i and
          labels == [data["tokens"]["target_output"][ci], data["tokens"]["source"][cj]] and
          (body(driver, "data-readout") or "").endswith(": %.3f" % weights[ci][cj]),
          "Page Down, → and End move the keyboard's cursor to %s, naming %r" % (cursor, labels))


def every_label(driver, data, cross):
    """Cell size 14: every token written along both axes, at least 11 px; the address keeps zoom=14."""
    driver.find_element(By.CSS_SELECTOR, '#view-matrix button[data-value="14"]').click()
    wait(driver, lambda d: picture(d, "%d/1" % cross).get_attribute("data-cell") == "14", "cell size 14")
    svg = picture(driver, "%d/1" % cross)
    sizes = driver.execute_script(
        "return Array.from(arguments[0].querySelectorAll('text')).map(function (t) {"
        " return Number(t.getAttribute('font-size')); });", svg)
    expected = len(data["tokens"]["target_output"]) + len(data["tokens"]["source"])
    check(len(sizes) == expected and min(sizes) >= 11,
          "at cell size 14 the picture writes %d labels (expected %d), the smallest %s px" %
          (len(sizes), expected, min(sizes or [0])))
    print("matrix view at cell size 14: drawn in %.2f s" % (float(body(driver, "data-matrix-ms")) / 1000))
    check("zoom=14" in driver.execute_script("return location.hash"), "the address keeps the cell size (zoom=14)")


def bad_addresses(driver):
    """A value the page cannot show is named (key, value, what it may be) and the view shows its default."""
    source = open(os.path.join(runs_dir, "data", "test.en")).readline().strip()
    page = os.path.join(write_page("small-page", "--text", source, "--ig-steps", "2")[0], "index.html")
    cases = [("view=flow&measure=foo", "measure", "foo", "rollout, norms, gxi, ig, four"),
             ("view=decoding&step=999", "step", "999", "from 0 to"),
             ("view=neuron&layer=x", "layer", "x", "whole number"),
             ("view=matrix&zoom=3", "zoom", "3", "fit, 4, 8, 14"),
             ("view=nope", "view", "nope", "head, model, matrix")]
    for address, key, value, allowed in cases:
        open_page(driver, "file://" + page + "#" + address, address)
        note = " ".join(p.text for p in driver.find_elements(By.CSS_SELECTOR, "#address-problems p"))
        check(body(driver, "data-address-problems") == key and key + "=\u201c" + value + "\u201d" in note and
              allowed in note, "#%s: the page says %r" % (address, note))
    open_page(driver, "file://" + page + "#view=flow&measure=foo", "a bad measure")
    text = driver.find_element(By.ID, "flow-text").text
    check("undefined" not in text and text.startswith("Attention rollout"),
          "measure=foo: the flow view shows rollout and explains it, not %r" % text[:60])
    open_page(driver, "file://" + page + "#view=decoding&step=999", "a step too far")
    check(body(driver, "data-step") == "0", "step=999: the decoding view shows step 1, not %s" % body(driver, "data-step"))
    open_page(driver, "file://" + page + "#view=flow&measure=ig", "a good address")
    check(not driver.find_elements(By.CSS_SELECTOR, "#address-problems p") and
          body(driver, "data-address-problems") == "", "a good address names no problem")


def shared_links(driver, port):
    """Under serve, a link with a sentence restores every part of the state once the sentence is translated."""
    sentence = open(os.path.join(runs_dir, "data", "train.en")).readline().strip()
    base = "http://127.0.0.1:%d/#" % port
    text = "&text=" + urllib.parse.quote(sentence)
    links = [("view=decoding&step=2", lambda d: body(d, "data-step") == "2", "step=2"),
             ("view=neuron&type=cross&layer=1&head=1&query=2", lambda d: d.find_element(By.ID, "neuron-table")
              .get_attribute("data-query") == "2", "query=2"),
             ("view=head&type=cross&layer=1&heads=1&pin=q1&means=heads",
              lambda d: d.find_element(By.ID, "head-mean").is_selected() and
              d.find_element(By.CSS_SELECTOR, 'svg.headview text.tok.pinned[data-side="q"][data-index="1"]'),
              "pin=q1"),
             ("view=matrix&zoom=8", lambda d: picture(d, "0/0").get_attribute("data-cell") == "8", "zoom=8")]
    for state, shown, kept in links:
        driver.get("about:blank")
        driver.get(base + state + text)
        wait(driver, lambda d: body(d, "data-shown-text") == sentence and body(d, "data-explorer-ready") == "1",
             "the linked sentence (" + state + ")", 60)
        try:
            restored = bool(shown(driver))
        except Exception as error:
            restored = False
            print(error)
        check(restored, "serve: the link #%s shows that state once the sentence is translated" % state)
        check(kept in driver.execute_script("return location.hash"), "serve: the address still says " + kept)


def contrast_offline(driver):
    """The page written with --contrast shows attention.json's contrast, its completeness check, and says how to get
    one it does not hold; a "why not?" button puts the alternative in the address. The command's bad input is named."""
    source = open(os.path.join(runs_dir, "data", "test.en")).readline().strip()
    target = open(os.path.join(runs_dir, "data", "test.fr")).readline().strip()
    page, data = write_page("contrast-page", "--text", source, "--target", target, "--contrast", "2:fille",
                            "--contrast", "all")
    contrasts = {(c["position"], c["alternative"]): c for c in data["contrasts"]}
    likeliest = sum(len([x for x in step["likeliest"] if x["token"] != step["chosen"]]) for step in data["decoding"]["steps"])
    check(len(contrasts) == likeliest + 1, "--contrast 2:fille --contrast all: %d contrasts, expected %d" %
          (len(contrasts), likeliest + 1))
    worst = max(abs(c["completeness_error"] - (sum(c["integrated_gradients"]) - (c["gap"] - c["baseline_gap"])))
                for c in contrasts.values())
    check(worst <= 1e-5 * len(data["tokens"]["source"]),
          "every contrast's reported error is Σ IG − (Δ(e) − Δ(0)) of its own numbers (worst %.2g)" % worst)
    open_page(driver, "file://" + os.path.join(page, "index.html") + "#view=decoding&step=2&alt=fille", "contrast")
    shown_contrast(driver, contrasts[(2, "fille")], "offline, 2:fille")
    step = data["decoding"]["steps"][3]
    other = [x["token"] for x in step["likeliest"] if x["token"] != step["chosen"]][0]
    driver.find_element(By.ID, "step-next").click()
    wait(driver, lambda d: body(d, "data-step") == "3", "step 4")
    driver.find_element(By.CSS_SELECTOR, '#view-decoding button[data-key="alt-%s"]' % other).click()
    wait(driver, lambda d: d.find_element(By.ID, "contrast").get_attribute("data-contrast") == "3:" + other,
         "the contrast with " + other)
    shown_contrast(driver, contrasts[(3, other)], "offline, why not? " + other)
    check("alt=" + urllib.parse.quote(other, safe="") in driver.execute_script("return location.hash"),
          "the address keeps the alternative (alt=%s)" % other)
    coarse, coarse_data = write_page("coarse-page", "--text", source, "--target", target, "--contrast", "2:fille",
                                     "--ig-steps", "1")
    open_page(driver, "file://" + os.path.join(coarse, "index.html") + "#view=decoding&step=2&alt=fille", "m = 1")
    shown_contrast(driver, coarse_data["contrasts"][0], "offline, 2:fille at m = 1")
    check(driver.find_element(By.ID, "contrast-check").get_attribute("data-ok") == "0",
          "at m = 1 the completeness check says the error is beyond its tolerance: %r" %
          driver.find_element(By.ID, "contrast-check").text)
    open_page(driver, "file://" + os.path.join(coarse, "index.html") + "#view=decoding&step=0&alt=zzz",
              "a contrast the page lacks")
    note = driver.find_element(By.ID, "contrast-note").text
    check("--contrast 0:zzz" in note, "a contrast the page does not hold says how to write it: %r" % note)
    for arguments, expected in ((["--contrast", "1:zzz"], "'zzz' is not a token of the target vocabulary"),
                                (["--contrast", "99:la"], "position 99 is past the translation"),
                                (["--contrast", "1:la", "--ig-steps", "0"], "give --ig-steps 1 or more")):
        done = subprocess.run([attnlab, "attention", "--run", os.path.join(runs_dir, "dot"), "--text", source, "--target",
                               target, "--out", os.path.join(work, "refused")] + arguments, capture_output=True, text=True)
        check(done.returncode != 0 and expected in done.stderr,
              "attnlab attention %s: exit %d, says %r" % (" ".join(arguments), done.returncode, done.stderr.strip()))


def shown_contrast(driver, contrast, label):
    """The contrast panel shows `contrast` (attention.json's or the command's): each source token's numbers, the
    split of the gap and its completeness check."""
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#contrast-table tr[data-s]')).map(function (r) {"
        " return Array.from(r.querySelectorAll('td[data-value]')).map(function (c) { return Number(c.dataset.value); }); });")
    check(rows == [list(pair) for pair in zip(contrast["integrated_gradients"], contrast["gradient_x_input"])],
          label + ": the table is the contrast's integrated gradients and gradient × input")
    check_line = driver.find_element(By.ID, "contrast-check")
    text = check_line.text.replace("−", "-")
    within = abs(contrast["completeness_error"]) <= 2e-3 + 1e-2 * abs(contrast["gap"] - contrast["baseline_gap"])
    check(check_line.get_attribute("data-ok") == ("1" if within else "0") and
          ("✓ within" if within else "✗ more than") in text and "%.4f" % contrast["source_part"] in text and
          "%.4f" % (contrast["gap"] - contrast["baseline_gap"]) in text and "m = %d" % contrast["steps"] in text,
          label + ": the completeness check says %r" % text)
    split = driver.find_element(By.ID, "contrast-split").text.replace("−", "-")
    check("%.4f" % contrast["baseline_gap"] in split and "%.4f" % contrast["source_part"] in split,
          label + ": the gap's split says %r" % split)


def contrast_served(driver, port):
    """Under serve, "why not?" asks api/contrast; the panel shows what `attnlab attention --contrast` writes."""
    sentence = open(os.path.join(runs_dir, "data", "test.en")).readline().strip()
    driver.get("about:blank")
    driver.get("http://127.0.0.1:%d/#view=decoding&step=1&text=%s" % (port, urllib.parse.quote(sentence)))
    wait(driver, lambda d: body(d, "data-shown-text") == sentence and body(d, "data-step") == "1", "the served sentence", 60)
    data = driver.execute_script("return window.attnlabExplorer.data")
    step = data["decoding"]["steps"][1]
    other = [x["token"] for x in step["likeliest"] if x["token"] != step["chosen"]][0]
    driver.find_element(By.CSS_SELECTOR, '#view-decoding button[data-key="alt-%s"]' % other).click()
    wait(driver, lambda d: d.find_element(By.ID, "contrast").get_attribute("data-contrast") == "1:" + other,
         "serve's contrast", 60)
    done = subprocess.run([attnlab, "attention", "--run", os.path.join(runs_dir, "dot"), "--text", sentence, "--target",
                           data["target"], "--contrast", "1:" + other, "--json"], capture_output=True, text=True)
    if check(done.returncode == 0, "attnlab attention --contrast --json: " + done.stderr.strip()):
        shown_contrast(driver, json.loads(done.stdout)["contrasts"][0], "serve, 1:" + other)
    field = driver.find_element(By.ID, "contrast-token")
    field.clear()
    field.send_keys("zzz", Keys.ENTER)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#contrast-note[data-state="error"]'), "serve's refusal", 60)
    note = driver.find_element(By.ID, "contrast-note").text
    check("'zzz' is not a token of the target vocabulary" in note, "serve: a token not in the vocabulary is named: %r" % note)


try:
    matrix_view(driver)
    bad_addresses(driver)
    contrast_offline(driver)
    port = free_port()
    server = subprocess.Popen([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        check("http://127.0.0.1:%d/" % port in line, "serve says where it listens: " + line.strip())
        shared_links(driver, port)
        contrast_served(driver, port)
    finally:
        check(stop(server) == 0, "serve stops on SIGTERM with exit 0")
finally:
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)

sys.exit(checks.finish())
