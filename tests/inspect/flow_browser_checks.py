"""flow_browser_checks.py — the explorer's flow view and serve's stale answers, in the browser (used by
explorer_browser_test.py, which owns the browser and the checklist).

  * flow view, for any run: each measure (rollout, value norms, gradient × input, integrated gradients, the four)
    draws its pictures with a colour legend and its explanation; the rollout picture's cells are attention.json's
    flow.rollout.decoder_source, and the integrated-gradients table shows each row's completeness error;
  * serve: a long sentence sent, then a short one before the long answer came: the page shows the short one's
    data and says it dropped one answer; while a request runs, the Translate button says so (aria-busy).
"""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys


def flow_cells(driver, caption):
    return driver.execute_script(
        "var caption = arguments[0];"
        "var f = Array.from(document.querySelectorAll('#view-flow figure.flow-figure')).filter(function (f) {"
        " return f.dataset.flow === caption; })[0];"
        "return f ? Array.from(f.querySelectorAll('rect[data-i]')).map(function (r) {"
        " return [Number(r.dataset.i), Number(r.dataset.j), Number(r.dataset.w)]; }) : null;", caption)


def check_flow(driver, data, label, check, view, click, screenshot=None):
    view(driver, "flow")
    flow = data["flow"]
    source, output = data["tokens"]["source"], data["tokens"]["target_output"]
    expected_figures = {"rollout": 3, "norms": 2, "gxi": 1, "ig": 1,
                        "four": 2 + (2 if flow["attribution"] else 0)}
    for measure, figures in expected_figures.items():
        click(driver, '#view-flow .seg button[data-value="%s"]' % measure)
        drawn = len(driver.find_elements(By.CSS_SELECTOR, "#view-flow figure.flow-figure"))
        if measure in ("gxi", "ig") and not flow["attribution"]:
            figures = 0
        check(drawn == figures, "%s: the flow view's %s draws %d pictures, expected %d" % (label, measure, drawn, figures))
        text = driver.find_element(By.ID, "flow-text").text
        check(len(text) > 100, "%s: the flow view's %s has its explanation" % (label, measure))
        if figures:
            legends = driver.find_elements(By.CSS_SELECTOR, "#view-flow .legend[role=img]")
            check(len(legends) >= 1, "%s: the flow view's %s has a colour legend" % (label, measure))
        if screenshot and measure in ("rollout", "ig", "four"):
            screenshot(driver, "flow-" + measure)
    click(driver, '#view-flow .seg button[data-value="rollout"]')
    cells = flow_cells(driver, "decoder position → source token")
    expected = [[t, s, w] for t, row in enumerate(flow["rollout"]["decoder_source"]) for s, w in enumerate(row)]
    check(cells == expected, label + ": the rollout picture is attention.json's flow.rollout.decoder_source")
    check(len(cells) == len(source) * len(output), label + ": rollout has a cell per (target token, source token)")
    if flow["attribution"]:
        click(driver, '#view-flow .seg button[data-value="ig"]')
        rows = driver.find_elements(By.CSS_SELECTOR, "#completeness tr")
        check(len(rows) == len(output) + 1, label + ": the completeness table has a row per target token")
        errors = [float(r.find_elements(By.TAG_NAME, "td")[3].text.replace("\u2212", "-")) for r in rows[1:]]
        want = flow["attribution"]["completeness_error"]
        check(all(abs(a - b) < 1e-3 for a, b in zip(errors, want)),
              label + ": the completeness errors shown %r are attention.json's %r" % (errors, want))


def check_stale_answer(driver, body, wait, check, train_sentence):
    """Sends 150 words, then a short sentence before the long answer arrived: the short one must win."""
    long_text = " ".join((train_sentence.split() * 60)[:150])
    dropped = int(body(driver, "data-dropped") or 0)
    # Both sent from one script, so the short one is the newer before the long answer can possibly come back.
    driver.execute_script(
        "var box = document.getElementById('ask-text'), form = document.getElementById('ask');"
        "box.value = arguments[0]; form.requestSubmit(); box.value = arguments[1]; form.requestSubmit();",
        long_text, train_sentence)
    button = driver.find_element(By.CSS_SELECTOR, "#ask button[type=submit]")
    check(button.get_attribute("aria-busy") == "true" and "\u2026" in button.text,
          "serve: while a request runs the button says %r (aria-busy %r)" % (button.text, button.get_attribute("aria-busy")))
    wait(driver, lambda d: int(body(d, "data-dropped") or 0) > dropped and
         d.find_element(By.ID, "ask-status").get_attribute("data-state") == "done", "both answers", 30)
    time.sleep(0.3)
    check(body(driver, "data-dropped-why") == "answered",
          "serve: the stale request was answered and dropped (%r)" % body(driver, "data-dropped-why"))
    check(body(driver, "data-shown-text") == train_sentence,
          "serve: the page shows the newer sentence, not the stale long one (%r)" % body(driver, "data-shown-text")[:60])
    shown = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#sentence .row:first-child code")]
    check(shown == train_sentence.split(), "serve: the tokens shown are the newer sentence's")
    check(button.get_attribute("aria-busy") == "false", "serve: the button is free again")


def time_long_sentence(driver, body, wait, words, train_sentence, ig_steps):
    """Seconds from Translate to the page drawn, for a sentence of `words` words (as the page itself measures)."""
    text = " ".join((train_sentence.split() * (words // max(1, len(train_sentence.split())) + 1))[:words])
    ig = driver.find_element(By.ID, "ask-ig")
    ig.clear()
    ig.send_keys(str(ig_steps))
    box = driver.find_element(By.ID, "ask-text")
    box.clear()
    box.send_keys(text)
    renders = int(body(driver, "data-renders"))
    started = time.time()
    box.send_keys(Keys.ENTER)
    wait(driver, lambda d: int(body(d, "data-renders")) > renders, "the %d-word answer" % words, 60)
    return time.time() - started
