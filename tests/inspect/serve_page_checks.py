"""serve_page_checks.py — the served explorer's form takes exactly what `attnlab serve` takes, and the page runs under
its Content-Security-Policy (used by explorer_browser_test.py, which owns the browser and the checklist; issue 47).

On a server of its own (--max-text-bytes 300, --max-answer-mb 1, so both limits bind on the tiny dot run):
  * the beam and IG fields' ranges are the server's (0 … 16, 0 … 64), and the line under the form states the bytes
    typed of the 300 and the most tokens the run's answer may have at the chosen beam (the page's config);
  * 302 bytes in 151 characters, and a beam of 17, are refused in the page with the server's words, and nothing is
    sent; a sentence of the stated K tokens is drawn, and one of K + 1 is refused by the server (413) as stated;
  * a script put into the page is not run (the policy names the page's own script alone), and the browser says so.
"""
import os
import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from checklist import console_errors, free_port, stop

REQUESTS_SENT = "return performance.getEntriesByType('resource').filter(function (e) {" \
                " return e.name.indexOf('api/translate') >= 0; }).length"


def status(driver):
    element = driver.find_element(By.ID, "ask-status")
    return element.get_attribute("data-state"), element.text


def ask(driver, wait, text, beam="1"):
    """Types a sentence and a beam size, presses Enter, waits for the page's verdict: (state, status text)."""
    driver.execute_script("document.getElementById('ask-status').setAttribute('data-state', 'idle')")
    beam_field = driver.find_element(By.ID, "ask-beam")
    beam_field.clear()
    beam_field.send_keys(beam)
    box = driver.find_element(By.ID, "ask-text")
    box.clear()
    box.send_keys(text, Keys.ENTER)
    wait(driver, lambda d: status(d)[0] in ("done", "error"), "the page's answer to %d characters" % len(text), 30)
    return status(driver)


def check_form_limits(driver, check, wait, words):
    limits = driver.execute_script("return window.attnlabExplorer.config.limits")
    fields = [driver.find_element(By.ID, name).get_attribute(bound)
              for name, bound in (("ask-beam", "min"), ("ask-beam", "max"), ("ask-ig", "min"), ("ask-ig", "max"))]
    check(fields == ["0", "16", "0", "64"], "the form's beam and IG ranges are the server's: %r" % fields)
    bound = limits["tokens"][0][1]
    line = driver.find_element(By.ID, "ask-limit").text
    check("0 of at most 300 bytes" in line and "at most %d tokens" % bound in line,
          "the form states the server's limits: %r (bound %r)" % (line, bound))
    sent = driver.execute_script(REQUESTS_SENT)
    state, text = ask(driver, wait, "é" * 151)
    over = driver.find_element(By.ID, "ask-limit").get_attribute("data-over")
    check(state == "error" and "302 bytes, more than the 300" in text and over is not None,
          "151 characters of 2 bytes are refused in the page, counted in bytes: %r" % text)
    state, text = ask(driver, wait, words[0], beam="17")
    check(state == "error" and '"beam" must be an integer from 0 to 16' in text, "beam 17 is refused in the page: %r" % text)
    check(driver.execute_script(REQUESTS_SENT) == sent, "nothing was sent for what the page refused")
    state, text = ask(driver, wait, " ".join(words[:bound]))
    check(state == "done", "a sentence of the stated %d tokens is answered and drawn: %r" % (bound, text))
    state, text = ask(driver, wait, " ".join(words[:bound + 1]))
    check(state == "error" and "--max-answer-mb" in text, "one of %d tokens is refused by the server, as the page "
          "stated: %r" % (bound + 1, text))


def check_policy(driver, check):
    """A script added to the page does not run: the Content-Security-Policy names the page's own script alone."""
    console_errors(driver)   # what was logged so far (read, and so cleared)
    ran = driver.execute_script(
        "var s = document.createElement('script'); s.textContent = 'window.cspProbe = 1;';"
        "document.body.appendChild(s); return window.cspProbe === 1;")
    refused = [e for e in console_errors(driver) if "Content Security Policy" in e]
    check(not ran and refused, "a script put into the served page is refused by its policy: ran %r, %r" % (ran, refused))


def check_serve_form(driver, check, attnlab, runs_dir, body, wait):
    words = [w for line in open(os.path.join(runs_dir, "data", "train.en")) for w in line.split()]
    port = free_port()
    server = subprocess.Popen([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--port", str(port),
                               "--max-text-bytes", "300", "--max-answer-mb", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        if not check("http://127.0.0.1:%d/" % port in line, "serve for the form's limits: " + line.strip()):
            return
        console_errors(driver)   # what the pages before this one logged (read, and so cleared)
        driver.get("http://127.0.0.1:%d/" % port)
        if not wait(driver, lambda d: body(d, "data-explorer-ready") == "0", "the served page (its script ran)"):
            return
        check_form_limits(driver, check, wait, words)
        errors = [e for e in console_errors(driver) if "413" not in e]   # the refused request itself is logged
        check(not errors, "the served page under its policy: console errors " + repr(errors))
        check_policy(driver, check)
    finally:
        code = stop(server)
        check(code == 0, "serve (form limits) stops on SIGTERM with exit 0 (got %r)" % code)
