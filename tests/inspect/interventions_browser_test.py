"""interventions_browser_test.py — the explorer's interventions panel under `attnlab serve`, in headless Chromium.

On the `dot` run of the explorer's fixture (tests/inspect/explorer_runs.sh): the panel shows under serve with a
sentence; a head is chosen and added and a source word masked with the keyboard alone (the focus stays on the
control); the answer's translation and log-probability equal `attnlab translate --json --intervene` for the same
interventions, and its plain ones the command's without; removing an intervention works; no console error.
    usage: interventions_browser_test.py ATTNLAB RUNS_DIR WORK_DIR
Exits 77 (skipped) when selenium, chromium or chromedriver is missing."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, body, console_errors, free_port, stop  # noqa: E402

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    print("SKIP: python3-selenium is not installed (tools/install-deps.sh installs it)")
    sys.exit(77)

attnlab, runs_dir, work = sys.argv[1:4]
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not chromium or not os.path.exists(chromedriver):
    print("SKIP: chromium or chromium-driver is not installed (tools/install-deps.sh installs them)")
    sys.exit(77)
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
    try:
        WebDriverWait(driver, seconds).until(lambda d: condition(d))
        return True
    except Exception:
        return check(False, "timed out waiting for " + what)


def focused_label(driver):
    return driver.execute_script("var a = document.activeElement; return a.id || a.getAttribute('aria-label');")


port = free_port()
server = subprocess.Popen([attnlab, "serve", "--run", "dot", "--port", str(port)], cwd=runs_dir,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
profile = tempfile.mkdtemp(prefix="interventions-chrome-", dir=work)
driver = None
try:
    check("http://127.0.0.1:%d/" % port in server.stdout.readline(), "serve started")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
                     "--window-size=1360,1000"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.get("http://127.0.0.1:%d/#text=%s" % (port, sentence.replace(" ", "%20")))
    wait(driver, lambda d: body(d, "data-explorer-ready") == "1", "the sentence")
    panel = driver.find_element(By.ID, "interventions")
    check(panel.is_displayed(), "the interventions panel shows under serve with a sentence")
    check(driver.find_element(By.ID, "iv-translate").get_attribute("disabled") is not None,
          "with nothing chosen, the translate button is disabled")

    # The keyboard alone: the head's selects, Add with Enter, a word's mask with Space.
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

    driver.find_element(By.ID, "iv-translate").send_keys(Keys.ENTER)
    wait(driver, lambda d: body(d, "data-intervention"), "the answer")
    shown = json.loads(body(driver, "data-intervention") or "{}")
    expected, plain = command(*specs), command()
    check(shown.get("translation") == expected["translation"],
          "the page's new translation is the command's: %r, %r" % (shown.get("translation"), expected["translation"]))
    check(abs(shown.get("log_prob", 1) - expected["log_prob"]) < 1e-3,
          "the page's log-probability is the command's: %r, %r" % (shown.get("log_prob"), expected["log_prob"]))
    check(shown.get("original", {}).get("translation") == plain["translation"] and
          abs(shown["original"]["log_prob"] - plain["log_prob"]) < 1e-3, "the plain translation beside it is the command's")
    cells = driver.find_elements(By.CSS_SELECTOR, "#iv-result td")
    check(len(cells) == 4 and cells[1].text == expected["translation"], "the result table shows both translations")
    check(len(driver.find_elements(By.CSS_SELECTOR, ".iv-map table")) == 2, "the maps before and after are drawn")

    driver.find_element(By.CSS_SELECTOR, "[aria-label='remove ablate:cross:0.1']").send_keys(Keys.ENTER)
    chosen = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#iv-chosen code")]
    check(chosen == ["mask:source:1"], "an intervention is removed by its button: %r" % chosen)
    check(not console_errors(driver), "no console error: %r" % console_errors(driver))
finally:
    if driver:
        driver.quit()
    stop(server)
    shutil.rmtree(profile, ignore_errors=True)
sys.exit(checks.finish())
