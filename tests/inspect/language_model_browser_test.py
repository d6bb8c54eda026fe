"""language_model_browser_test.py — the explorer on a decoder-only language model, in headless Chromium.

A tiny model of the toy English trains here in about a second. The page `attnlab attention --max-tokens 6 --out`
writes shows the prompt and the continuation apart, only the head, model, matrix, neuron, decoding and flow tabs,
draws each with no console error, and says where a view is translation-only (the flow view's attributions, the
decoding view's contrast). Under `attnlab serve` the form shows the sampling fields (not beam, IG steps, compare)
with the server's limits, refuses a temperature below 0 in the server's words unsent, draws the continuation the
server sends (equal to `attnlab attention` with the same settings), keeps the fields in the address, and a link
with them opened afresh restores them and draws the same text.
    usage: language_model_browser_test.py ATTNLAB SOURCE_DIR WORK_DIR
Exits 77 (skipped) when selenium, chromium or chromedriver is missing."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, body, console_errors, free_port, start_chromium, stop, wait_for  # noqa: E402

attnlab, source_dir, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
checks = Checklist("language model browser")
check = checks.check


def run(*arguments):
    return subprocess.run([attnlab, *arguments], cwd=work, capture_output=True, text=True)


def train():
    with open(os.path.join(work, "lm.yaml"), "w") as f:
        f.write("data: {train_text: %s/data/toy-en-fr/valid.en, valid_text: %s/data/toy-en-fr/test.en, max_len: 32}\n"
                "tokenizer: {kind: word}\nmodel: {task: language_model, d_model: 32, heads: 2, d_ff: 64, "
                "decoder_layers: 2, tie_output: true}\ntrain: {threads: 1, batch_tokens: 512, max_steps: 40, "
                "lr: 0.003, schedule: constant, valid_every: 1000}\n" % (source_dir, source_dir))
    return check(run("train", "--config", "lm.yaml", "--run", "lm").returncode == 0, "a tiny language model trains")


def shown_tabs(driver):
    from selenium.webdriver.common.by import By
    return [t.get_attribute("data-view") for t in driver.find_elements(By.CSS_SELECTOR, "#tabs [role=tab]")
            if t.is_displayed()]


def offline(driver):
    from selenium.webdriver.common.by import By
    check(run("attention", "--run", "lm", "--text", "the old", "--max-tokens", "6", "--out", "page").returncode == 0,
          "attention writes the page")
    driver.get("file://" + os.path.join(work, "page", "index.html"))
    wait_for(driver, lambda d: body(d, "data-explorer-ready") == "1", 15)
    tabs = shown_tabs(driver)
    check(tabs == ["head", "model", "matrix", "neuron", "decoding", "flow"], "the tabs of a language model: %r" % tabs)
    rows = [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#sentence .row .what")]
    check(rows == ["prompt", "continuation"], "the sentence card shows the prompt and the continuation: %r" % rows)
    for view in tabs:
        driver.find_element(By.ID, "tab-" + view).click()
        check(driver.find_element(By.ID, "view-" + view).get_attribute("data-drawn"), view + " view is drawn")
    check(not driver.find_elements(By.CSS_SELECTOR, "#view-decoding .why-not"), "the decoding view offers no contrast")
    driver.get("file://" + os.path.join(work, "page", "index.html") + "#view=flow&measure=ig")
    driver.refresh()
    wait_for(driver, lambda d: body(d, "data-explorer-ready") == "1", 15)
    check(driver.find_elements(By.ID, "flow-translation-only"), "the flow view says its attributions are for translations")
    check(not console_errors(driver), "no console error offline: %r" % console_errors(driver))


def served(driver, port):
    from selenium.webdriver.common.by import By
    driver.get("http://127.0.0.1:%d/" % port)
    wait_for(driver, lambda d: d.find_element(By.ID, "ask-sampling").is_displayed(), 15)
    check(not driver.find_element(By.ID, "ask-beam").is_displayed(), "the beam field is hidden for a language model")
    bounds = {f: (driver.find_element(By.ID, "ask-" + f).get_attribute("min"),
                  driver.find_element(By.ID, "ask-" + f).get_attribute("max"))
              for f in ["max-tokens", "temperature", "top-k", "top-p", "seed"]}
    check(bounds == {"max-tokens": ("0", "200"), "temperature": ("0", "10"), "top-k": ("0", "100000"),
                     "top-p": ("0", "1"), "seed": ("0", "2147483647")}, "the fields take the server's limits: %r" % bounds)
    driver.find_element(By.ID, "ask-text").send_keys("the old")
    temperature = driver.find_element(By.ID, "ask-temperature")
    temperature.clear()
    temperature.send_keys("-1")
    driver.find_element(By.CSS_SELECTOR, "#ask button[type=submit]").click()
    status = driver.find_element(By.ID, "ask-status").text
    check(status == '"temperature" must be a number from 0 to 10, got -1', "a temperature below 0 is refused: %r" % status)
    temperature.clear()
    temperature.send_keys("0.8")
    driver.find_element(By.ID, "ask-seed").clear()
    driver.find_element(By.ID, "ask-seed").send_keys("3")
    driver.find_element(By.CSS_SELECTOR, "#ask button[type=submit]").click()
    wait_for(driver, lambda d: body(d, "data-explorer-ready") == "1", 15)
    expected = json.loads(run("attention", "--run", "lm", "--text", "the old", "--max-tokens", "20", "--temperature",
                              "0.8", "--seed", "3", "--json").stdout or "{}")
    shown = driver.execute_script("return window.attnlabExplorer.data.generation")
    check(shown == expected.get("generation"), "the page draws what the command continues: %r" % shown)
    link = driver.current_url
    check("temperature=0.8" in link and "seed=3" in link, "the address keeps the sampling fields: " + link)
    driver.get("about:blank")
    driver.get(link)
    wait_for(driver, lambda d: body(d, "data-explorer-ready") == "1", 15)
    again = driver.execute_script("return window.attnlabExplorer.data.generation")
    check(again == shown and driver.find_element(By.ID, "ask-temperature").get_attribute("value") == "0.8",
          "the link restores the fields and draws the same text")
    check(not console_errors(driver), "no console error under serve: %r" % console_errors(driver))


if train():
    driver, profile = start_chromium("language-model-chrome-")   # exits 77 (skipped) without selenium or chromium
    port = free_port()
    server = subprocess.Popen([attnlab, "serve", "--run", "lm", "--port", str(port)], cwd=work,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        offline(driver)
        if check("http://127.0.0.1:%d/" % port in server.stdout.readline(), "serve started"):
            served(driver, port)
    finally:
        driver.quit()
        stop(server)
        shutil.rmtree(profile, ignore_errors=True)
sys.exit(checks.finish())
