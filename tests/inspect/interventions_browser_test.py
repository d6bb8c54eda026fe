"""interventions_browser_test.py — the explorer's interventions panel under `attnlab serve`, in headless Chromium.

On the `dot` run of the explorer's fixture (tests/inspect/explorer_runs.sh): the panel shows under serve with a
sentence; a head is chosen and added and a source word masked with the keyboard alone (the focus stays on the
control); the answer's translation and log-probability equal `attnlab translate --json --intervene` for the same
interventions, and its plain ones the command's without; the result saves as an SVG picture; the chosen
interventions are in the address (intervene=…), and that address opened afresh translates with them again; a bad
intervene= (not a SPEC, or a head the model lacks) is named above the views and nothing is sent; removing an
intervention works; no console error. (The live page's panel: tests/web/live_browser_test.py.)
    usage: interventions_browser_test.py ATTNLAB RUNS_DIR WORK_DIR
Exits 77 (skipped) when selenium, chromium or chromedriver is missing."""
import json
import os
import shutil
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, body, console_errors, free_port, start_chromium, stop  # noqa: E402

attnlab, runs_dir, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
checks = Checklist("interventions browser")
check = checks.check
sentence = "a happy girl does not go ."
specs = ["ablate:cross:0.1", "mask:source:1"]


def command(*interventions):
    arguments = [attnlab, "translate", "--run", "dot", "--text", sentence, "--json"]
    for spec in interventions:
        arguments += ["--intervene", spec]
    return json.loads(subprocess.run(arguments, cwd=runs_dir, capture_output=True, text=True, check=True).stdout)


def wait(driver, condition, what, seconds=15):
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        WebDriverWait(driver, seconds).until(lambda d: condition(d))
        return True
    except Exception:
        return check(False, "timed out waiting for " + what)


def focused_label(driver):
    return driver.execute_script("var a = document.activeElement; return a.id || a.getAttribute('aria-label');")


def open_fresh(driver, url):
    """The page at `url`, loaded anew (a second driver.get of the same page and another hash only moves the hash)."""
    driver.get("about:blank")
    driver.get(url)
    wait(driver, lambda d: body(d, "data-explorer-ready") == "1", "the sentence of " + url)


def check_answer(shown, expected, plain, how):
    check(shown.get("translation") == expected["translation"], "%s: the page's new translation is the command's: "
          "%r, %r" % (how, shown.get("translation"), expected["translation"]))
    check(abs(shown.get("log_prob", 1) - expected["log_prob"]) < 1e-3, "%s: the page's log-probability is the "
          "command's: %r, %r" % (how, shown.get("log_prob"), expected["log_prob"]))
    check(shown.get("original", {}).get("translation") == plain["translation"] and
          abs(shown["original"]["log_prob"] - plain["log_prob"]) < 1e-3,
          how + ": the plain translation beside it is the command's")


def choose_with_keyboard(driver):
    """The head's selects, Add with Enter, a word's mask with Space; the focus stays on each control."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.select import Select
    Select(driver.find_element(By.ID, "iv-layer")).select_by_value("0")
    Select(driver.find_element(By.ID, "iv-head")).select_by_value("1")
    driver.find_element(By.ID, "iv-add").send_keys(Keys.ENTER)
    check(focused_label(driver) == "iv-add", "the focus stays on Add after adding (got %r)" % focused_label(driver))
    word = driver.find_elements(By.CSS_SELECTOR, ".iv-mask")[1]
    label = word.get_attribute("aria-label")
    word.send_keys(Keys.SPACE)
    check(focused_label(driver) == label, "the focus stays on the mask button (got %r)" % focused_label(driver))
    check(driver.find_elements(By.CSS_SELECTOR, ".iv-mask")[1].get_attribute("aria-pressed") == "true",
          "a masked word's button says aria-pressed")
    chosen = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#iv-chosen code")]
    check(chosen == specs, "the chosen interventions are listed: %r" % chosen)


def check_saved_picture(driver, translation):
    from selenium.webdriver.common.by import By
    driver.find_element(By.ID, "iv-save").click()
    check((body(driver, "data-picture") or "").startswith("attnlab-interventions.svg"),
          "the result saves as attnlab-interventions.svg: %r" % body(driver, "data-picture"))
    svg = driver.execute_script("return window.attnlabExplorer.lastPicture.svg") or ""
    check(svg.startswith("<svg") and translation in svg and svg.count("<table") == 3 and "iv-save" not in svg,
          "the picture holds the result table and both maps, without the save button")


def address_state(driver):
    state = urllib.parse.parse_qs(body(driver, "data-state-url") or "")
    return state.get("intervene", [""])[0]


def check_bad_addresses(driver, port):
    """A value that is not a SPEC, and a head the 2-layer model lacks: named, the panel empty, nothing sent."""
    from selenium.webdriver.common.by import By
    for value, shown in [("ablate:cross:x", "ablate:cross:x"), ("ablate:cross:9.0,mask:source:1", "ablate:cross:9.0")]:
        open_fresh(driver, "http://127.0.0.1:%d/#text=%s&intervene=%s" % (port, urllib.parse.quote(sentence), value))
        note = " ".join(p.text for p in driver.find_elements(By.CSS_SELECTOR, "#address-problems p"))
        check(body(driver, "data-address-problems") == "intervene" and "intervene=\u201c" + shown in note,
              "intervene=%s is named above the views: %r" % (value, note))
        check(not driver.find_elements(By.CSS_SELECTOR, "#iv-chosen code") and not body(driver, "data-intervention"),
              "intervene=%s: nothing chosen, nothing sent" % value)


def run(driver, port):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    open_fresh(driver, "http://127.0.0.1:%d/#text=%s" % (port, urllib.parse.quote(sentence)))
    check(driver.find_element(By.ID, "interventions").is_displayed(), "the panel shows under serve with a sentence")
    check(not driver.find_elements(By.ID, "iv-live-note"), "under serve, no note about the browser build")
    check(driver.find_element(By.ID, "iv-translate").get_attribute("disabled") is not None,
          "with nothing chosen, the translate button is disabled")
    choose_with_keyboard(driver)
    check(address_state(driver) == ",".join(specs), "the address keeps the chosen: %r" % address_state(driver))
    driver.find_element(By.ID, "iv-translate").send_keys(Keys.ENTER)
    wait(driver, lambda d: body(d, "data-intervention"), "the answer")
    expected, plain = command(*specs), command()
    check_answer(json.loads(body(driver, "data-intervention") or "{}"), expected, plain, "chosen")
    cells = driver.find_elements(By.CSS_SELECTOR, "#iv-result td")
    check(len(cells) == 4 and cells[1].text == expected["translation"], "the result table shows both translations")
    check(len(driver.find_elements(By.CSS_SELECTOR, ".iv-map table")) == 2, "the maps before and after are drawn")
    check_saved_picture(driver, expected["translation"])

    link = driver.current_url
    open_fresh(driver, link)
    wait(driver, lambda d: body(d, "data-intervention"), "the answer to a link with intervene=")
    check_answer(json.loads(body(driver, "data-intervention") or "{}"), expected, plain, "the link " + link)
    chosen = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#iv-chosen code")]
    check(chosen == specs, "the link restores the chosen interventions: %r" % chosen)

    driver.find_element(By.CSS_SELECTOR, "[aria-label='remove ablate:cross:0.1']").send_keys(Keys.ENTER)
    chosen = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#iv-chosen code")]
    check(chosen == ["mask:source:1"] and address_state(driver) == "mask:source:1",
          "an intervention is removed by its button, and from the address: %r" % chosen)
    check(not console_errors(driver), "no console error: %r" % console_errors(driver))
    check_bad_addresses(driver, port)


driver, profile = start_chromium("interventions-chrome-")   # exits 77 (skipped) without selenium or chromium
port = free_port()
server = subprocess.Popen([attnlab, "serve", "--run", "dot", "--port", str(port)], cwd=runs_dir,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
try:
    if check("http://127.0.0.1:%d/" % port in server.stdout.readline(), "serve started"):
        run(driver, port)
finally:
    driver.quit()
    stop(server)
    shutil.rmtree(profile, ignore_errors=True)
sys.exit(checks.finish())
