"""cloze_browser_checks.py — the explorer's cloze view (src/inspect/pages/explorer/cloze.js) in the browser, offline and
under `attnlab serve` (used by explorer_browser_test.py, which owns the browser and the checklist).

  * `attnlab attention` on a cloze run writes cloze.json and the explorer: the cloze view draws α, β, β̄ and s as
    cloze.json has them, with titles that fit, a legend and an explanation; an unknown word shows as typed;
    choosing a document word by keyboard shows its s and α row; the SVG files' titles fit their pictures;
  * `attnlab serve` with a cloze run and a translation run: a question sent to the cloze run is answered and drawn
    in the cloze view (serve used to refuse cloze runs), and a URL with the question in it shows it.
"""
import json
import os
import re
import subprocess
import urllib.parse
import xml.etree.ElementTree as ElementTree

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select

from checklist import free_port, stop


def cloze_cells(driver, name):
    return driver.execute_script(
        "var f = document.querySelector('figure[data-cloze=\"' + arguments[0] + '\"]'); if (!f) return null;"
        "var rows = {}; f.querySelectorAll('rect[data-i]').forEach(function (r) {"
        " (rows[r.dataset.i] = rows[r.dataset.i] || [])[Number(r.dataset.j)] = Number(r.dataset.w); });"
        "return Object.keys(rows).map(function (i) { return rows[i]; });", name)


def check_cloze_view(driver, check, data, label):
    """The cloze view of a page holding cloze.json: every picture as the JSON has it."""
    tabs = [t.get_attribute("data-view") for t in driver.find_elements(By.CSS_SELECTOR, "#tabs [role=tab]") if t.is_displayed()]
    check(tabs == ["cloze"] and driver.find_element(By.TAG_NAME, "body").get_attribute("data-view") == "cloze",
          label + ": a cloze run's page shows the cloze view alone (tabs %r)" % tabs)
    expected = {"alpha": data["alpha"], "beta": data["beta"], "beta_mean": [data["beta_mean"]], "s": [data["s"]]}
    for name, matrix in expected.items():
        check(cloze_cells(driver, name) == matrix, "%s: the %s picture is cloze.json's" % (label, name))
    captions = driver.execute_script(
        "return Array.from(document.querySelectorAll('figure.cloze-figure figcaption')).map(function (c) {"
        " return [c.textContent, c.scrollWidth <= c.clientWidth + 1]; })")
    check(len(captions) == 4 and all(fits for _, fits in captions), label + ": the four titles fit: %r" % captions)
    check(driver.find_elements(By.CSS_SELECTOR, "#view-cloze .legend[role=img]"), label + ": the cloze view has a legend")
    hint = driver.find_element(By.ID, "cloze-hint").text
    check("placeholder" in hint and "Rows are document words" in hint, label + ": the cloze view explains itself")
    answers = driver.find_element(By.ID, "cloze-answers").text
    check(answers.startswith("answers by P: " + data["answers"][0]["word"]), label + ": the answers %r" % answers)


def check_cloze_keyboard(driver, check, data, label, press, tab_to, key_starts):
    """TAB to the document words, → ENTER: the table shows that word's s and α row."""
    if not tab_to(driver, key_starts("word-")):
        return check(False, label + ": TAB never reached the document words")
    start = int(driver.execute_script("return document.activeElement.dataset.word"))
    step = Keys.ARROW_RIGHT if start + 1 < len(data["document"]) else Keys.ARROW_LEFT
    press(driver, step, Keys.ENTER)
    chosen = start + 1 if step == Keys.ARROW_RIGHT else start - 1
    table = driver.find_element(By.ID, "cloze-word")
    values = [float(td.get_attribute("data-value")) for td in table.find_elements(By.CSS_SELECTOR, "tr:nth-child(2) td[data-value]")]
    check(table.get_attribute("data-word") == str(chosen) and values == [data["s"][chosen]] + data["alpha"][chosen],
          label + ": → ENTER chooses document word %d, its s and α row %r" % (chosen, values))


def check_cloze_page(driver, check, open_page, runs_dir, keys):
    page = os.path.join(runs_dir, "cloze-page")
    data = json.load(open(os.path.join(page, "cloze.json")))
    check(data["task"] == "cloze" and data["reader"] == "aoa" and "zorblax" in data["document"] and
          data["document_unknown"][data["document"].index("zorblax")], "cloze.json: the unknown word is marked")
    open_page(driver, "file://" + os.path.join(page, "index.html"), "cloze offline")
    check_cloze_view(driver, check, data, "cloze offline")
    marked = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#sentence code.unk")]
    check(marked == ["zorblax?", "zorblax?"], "cloze offline: the unknown word is shown as typed, marked: %r" % marked)
    check_cloze_keyboard(driver, check, data, "cloze offline", *keys)
    for name in ("alpha", "beta", "beta_mean", "s"):   # the static pictures: a bold 13 px title gets ≥ 8 px a character
        root = ElementTree.parse(os.path.join(page, name + ".svg")).getroot()
        title = [t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("font-weight") == "bold"][0].text
        check(float(root.get("width")) >= 8 * len(title), "cloze %s.svg: %s px wide for its title %r" % (name, root.get("width"), title))


def check_cloze_serve(driver, check, attnlab, runs_dir, body, wait):
    question = open(os.path.join(runs_dir, "cloze-question.txt")).read().strip()
    port = free_port()
    server = subprocess.Popen([attnlab, "serve", "--run", os.path.join(runs_dir, "cloze"), "--run",
                               os.path.join(runs_dir, "dot"), "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        if not check("http://127.0.0.1:%d/" % port in line, "serve takes a cloze run: " + line.strip()):
            return
        driver.get("http://127.0.0.1:%d/" % port)
        wait(driver, lambda d: body(d, "data-explorer-ready") == "0", "the served page")
        Select(driver.find_element(By.ID, "ask-run")).select_by_value("0")
        box = driver.find_element(By.ID, "ask-text")
        box.send_keys(question, Keys.ENTER)
        wait(driver, lambda d: d.find_element(By.ID, "ask-status").get_attribute("data-state") in ("done", "error"),
             "the cloze answer", 30)
        status = driver.find_element(By.ID, "ask-status").text
        data = driver.execute_script("return window.attnlabExplorer.data")
        check(data and data.get("task") == "cloze" and data["source"] == question, "serve cloze: answered: " + status)
        if data and data.get("task") == "cloze":
            check_cloze_view(driver, check, data, "serve cloze")
        # A link with the question: the page asks for it on opening, and shows its view.
        driver.get("about:blank")
        driver.get("http://127.0.0.1:%d/#view=cloze&run=0&text=%s" % (port, urllib.parse.quote(question)))
        wait(driver, lambda d: body(d, "data-explorer-ready") == "1", "the linked cloze question", 30)
        check(body(driver, "data-shown-text") == question and body(driver, "data-view") == "cloze",
              "serve cloze: a URL with the question shows it")
        box = driver.find_element(By.ID, "ask-text")
        box.clear()
        box.send_keys("no query marker here", Keys.ENTER)
        wait(driver, lambda d: d.find_element(By.ID, "ask-status").get_attribute("data-state") == "error", "a refusal")
        check(re.search("query", driver.find_element(By.ID, "ask-status").text),
              "serve cloze: a line that is not a question is refused with a message: " +
              driver.find_element(By.ID, "ask-status").text)
    finally:
        code = stop(server)
        check(code == 0, "serve (cloze) stops on SIGTERM with exit 0 (got %r)" % code)
