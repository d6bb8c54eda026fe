"""explorer_access_checks.py — the explorer without a mouse, its address, its pictures and its labels (used by
explorer_browser_test.py, which owns the browser and the checklist).

  * keyboard: every view walked with TAB, the arrow keys and ENTER only — the tabs (role=tab,
    aria-selected), the head view's tokens (pin), a model-view thumbnail (opens and closes, the focus comes back),
    a heatmap's cells (role=grid; the read-out is the cell's weight), the neuron view's queries and key rows, the
    decoding view's buttons, the flow view's measures, the compare view's pictures and every view's save button;
  * every view has a colour legend and an explanation; a view hidden is not drawn until it is shown;
  * the address: a URL with a view, type, layer, head and query shows exactly that; the state of a page after
    clicks, loaded again from its address, shows the same;
  * a saved picture is an SVG that opens in the browser and is not blank;
  * labels: in every mode of the head view the decoder rows are the tokens predicted and the hint says so; an
    unknown word is shown as typed and marked.
"""
import json
import os
import subprocess
import xml.etree.ElementTree as ElementTree

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from checklist import body  # noqa: E402
from matrix_browser_checks import focused_weights  # noqa: E402

VIEWS = ["head", "model", "matrix", "neuron", "decoding", "flow", "compare"]
ACTIVE = ("var a = document.activeElement; return a ? {tag: a.tagName.toLowerCase(), role: a.getAttribute('role'),"
          " key: a.getAttribute('data-key'), view: a.getAttribute('data-view'), id: a.id,"
          " selected: a.getAttribute('aria-selected'), label: a.getAttribute('aria-label')} : {};")


def press(driver, *keys):
    ActionChains(driver).send_keys(*keys).perform()


def active(driver):
    return driver.execute_script(ACTIVE) or {}


def tab_to(driver, wanted, limit=400):
    """TAB until the focused element satisfies wanted(descriptor); True when it did."""
    for _ in range(limit):
        press(driver, Keys.TAB)
        if wanted(active(driver)):
            return True
    return False


def key_starts(prefix):
    return lambda a: (a.get("key") or "").startswith(prefix)


def to_view(driver, check, name):
    """From anywhere: on with TAB (past the end of the page it starts again at the top) to the selected tab, then →
    until the tab of `name` is selected."""
    if not tab_to(driver, lambda a: a.get("role") == "tab", limit=600):
        return check(False, "keyboard: TAB never came back to the tabs")
    for _ in range(len(VIEWS) + 2):
        if body(driver, "data-view") == name:
            break
        press(driver, Keys.ARROW_RIGHT)
    a = active(driver)
    return check(body(driver, "data-view") == name and a.get("view") == name and a.get("selected") == "true",
                 "keyboard: the arrow keys on the tabs open the %s view (focus %r)" % (name, a))


def keyboard_head(driver, check, data):
    if not tab_to(driver, key_starts("tok-q")):
        return check(False, "keyboard: TAB never reached a head-view token")
    press(driver, Keys.ARROW_DOWN)
    check(active(driver).get("key") == "tok-q1", "keyboard: ↓ moves to the next query token")
    svg = driver.find_element(By.CSS_SELECTOR, "svg.headview")
    check(svg.get_attribute("data-focus") == "q1", "keyboard: the focused token keeps only its lines")
    press(driver, Keys.ENTER)
    check(svg.get_attribute("data-pinned") == "q1", "keyboard: ENTER pins the token's lines")
    press(driver, Keys.ARROW_RIGHT)
    check(key_starts("tok-k")(active(driver)), "keyboard: → jumps to the keys column")


def keyboard_model(driver, check):
    if not tab_to(driver, key_starts("thumb-")):
        return check(False, "keyboard: TAB never reached a thumbnail")
    thumb = active(driver)["key"]
    press(driver, Keys.ENTER)
    modal = driver.find_element(By.ID, "modal")
    check(modal.is_displayed() and "thumb-" + modal.get_attribute("data-open") == thumb,
          "keyboard: ENTER on %s opens it large" % thumb)
    check("close" in (active(driver).get("label") or ""), "keyboard: the focus is on the large picture's close button")
    press(driver, Keys.ENTER)
    check(not modal.is_displayed() and active(driver).get("key") == thumb,
          "keyboard: ENTER on close shuts it and the focus is back on the thumbnail")


def keyboard_grid(driver, check, view, matrix_of):
    """TAB to the view's first heatmap, → ↓: the cursor is on cell (1, 1) and the read-out is its weight."""
    if not tab_to(driver, lambda a: a.get("role") == "grid" and a.get("tag") == "svg"):
        return check(False, "keyboard: TAB never reached a picture of the %s view" % view)
    press(driver, Keys.ARROW_RIGHT, Keys.ARROW_DOWN)
    cursor = driver.execute_script("return document.activeElement.getAttribute('data-cursor')")
    readout = body(driver, "data-readout") or ""
    matrix = matrix_of(driver)
    check(cursor == "1/1" and readout.endswith(": %.3f" % matrix[1][1]),
          "keyboard: %s view, → ↓ puts the cursor on (1, 1) and reads %r (cell %r)" % (view, readout, matrix[1][1]))


def focused_matrix(driver):
    if driver.execute_script("return document.activeElement.querySelector('image.cells') !== null"):
        return focused_weights(driver)   # a matrix-view picture: its cells are an image (matrix_browser_checks.py)
    return driver.execute_script(
        "var rows = {}; document.activeElement.querySelectorAll('rect[data-i]').forEach(function (r) {"
        " (rows[r.dataset.i] = rows[r.dataset.i] || [])[Number(r.dataset.j)] = Number(r.dataset.w); });"
        "return Object.keys(rows).map(function (i) { return rows[i]; });")


def keyboard_neuron(driver, check):
    if not tab_to(driver, key_starts("query-")):
        return check(False, "keyboard: TAB never reached the neuron view's queries")
    press(driver, Keys.ARROW_RIGHT, Keys.ENTER)
    table = driver.find_element(By.ID, "neuron-table")
    check(table.get_attribute("data-query") == "1", "keyboard: → ENTER chooses query 1 in the neuron view")
    if not tab_to(driver, key_starts("neuron-key-")):
        return check(False, "keyboard: TAB never reached the neuron view's keys")
    start = int(active(driver)["key"].split("-")[-1])
    press(driver, Keys.ARROW_UP if start > 0 else Keys.ARROW_DOWN, Keys.ENTER)
    chosen = start - 1 if start > 0 else start + 1
    a = active(driver)
    check(a.get("key") == "neuron-key-%d" % chosen and a.get("selected") == "true",
          "keyboard: ↑/↓ ENTER chooses key %d in the neuron table (focus %r)" % (chosen, a))


def keyboard_walk(driver, check, url, data, label):
    """Every view, no mouse. The page opens with the focus on nothing; the first TAB reaches the tabs."""
    driver.get("about:blank")
    driver.get(url)
    if not tab_to(driver, lambda a: a.get("role") == "tab"):
        return check(False, label + ": TAB never reached the tabs")
    check(active(driver).get("selected") == "true", label + ": the first tab reached is the selected one")
    for view in VIEWS:
        if not to_view(driver, check, view):
            continue
        if view == "head":
            keyboard_head(driver, check, data)
        elif view == "model":
            keyboard_model(driver, check)
        elif view in ("matrix", "compare", "flow"):
            if view == "flow":
                tab_to(driver, key_starts("seg-measure-norms"))
                press(driver, Keys.ENTER)
                check("Value-weighted" in driver.find_element(By.ID, "flow-text").text,
                      label + ": ENTER on a flow measure shows it")
            keyboard_grid(driver, check, view, focused_matrix)
        elif view == "neuron":
            keyboard_neuron(driver, check)
        elif view == "decoding":
            tab_to(driver, key_starts("step-next"))
            press(driver, Keys.ENTER)
            check(body(driver, "data-step") == "1", label + ": ENTER on next ▶ goes to step 2")
        to_view(driver, check, view)
        tab_to(driver, key_starts("save-" + view))
        press(driver, Keys.ENTER)
        check((body(driver, "data-picture") or "").startswith("attnlab-%s.svg" % view),
              label + ": ENTER on the %s view's save button makes its picture" % view)


def legends_and_hints(driver, check, view, label):
    """The shown view has a colour legend and a paragraph of explanation; views not shown are not drawn."""
    for name in VIEWS:
        driver.find_element(By.CSS_SELECTOR, '#tabs [data-view="%s"]' % name).click()
        legends = driver.find_elements(By.CSS_SELECTOR, "#view-%s .legend[role=img]" % name)
        hints = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "#view-%s .hint" % name)]
        check(legends, "%s: the %s view has a colour legend" % (label, name))
        check(any(len(h) > 80 for h in hints), "%s: the %s view explains itself" % (label, name))


def lazy_drawing(driver, check, open_page, url, label):
    open_page(driver, url, label + " (lazy)")
    drawn = driver.execute_script("return Array.from(document.querySelectorAll('section.view')).filter(function (s) {"
                                  " return s.children.length; }).map(function (s) { return s.id; })")
    check(drawn == ["view-head"], label + ": on opening only the head view is drawn, not %r" % drawn)
    driver.find_element(By.CSS_SELECTOR, '#tabs [data-view="matrix"]').click()
    check(driver.find_elements(By.CSS_SELECTOR, "#view-matrix svg[data-map]"), label + ": the matrix view is drawn when shown")


def address(driver, check, open_page, page_dir, data, label):
    """A URL with state shows that state; the address after clicks shows the same page again."""
    url = "file://" + os.path.join(page_dir, "index.html")
    cross = sorted([m for m in data["maps"] if m["type"] == "cross"], key=lambda m: m["layer"])[-1]
    query = min(2, len(cross["weights"][0]) - 1)
    open_page(driver, url + "#view=neuron&type=cross&layer=%d&head=1&query=%d" % (cross["layer"], query), label + " address")
    table = driver.find_element(By.ID, "neuron-table")
    shown = [table.get_attribute(a) for a in ("data-map", "data-head", "data-query")]
    check(body(driver, "data-view") == "neuron" and shown == [str(data["maps"].index(cross)), "1", str(query)],
          label + ": the address opens the neuron view of cross layer %d, head 1, query %d (shows %r)" %
          (cross["layer"], query, shown))
    tab = driver.find_element(By.ID, "tab-neuron")
    check(tab.get_attribute("aria-selected") == "true", label + ": the address's view is the selected tab")
    open_page(driver, url + "#view=head&type=encoder_self&layer=0&heads=1&pin=q1", label + " address head")
    lines = driver.execute_script("return Array.from(document.querySelectorAll('svg.headview line')).filter(function (l) {"
                                  " return l.style.display !== 'none'; }).map(function (l) { return [l.dataset.q, l.dataset.head]; })")
    check(lines and all(q == "1" and h == "1" for q, h in lines),
          label + ": heads=1&pin=q1 shows only head 1's lines of query 1 (%d lines)" % len(lines))
    driver.find_element(By.CSS_SELECTOR, '#tabs [data-view="decoding"]').click()
    driver.find_element(By.ID, "step-next").click()
    saved = driver.execute_script("return location.hash")
    check("view=decoding" in saved and "step=1" in saved, label + ": the address follows the page: " + saved)
    open_page(driver, url + saved, label + " address again")
    check(body(driver, "data-view") == "decoding" and body(driver, "data-step") == "1",
          label + ": the saved address opens the same view and step")


def picture(driver, check, work, source_dir, view, label):
    """The view's save button: an SVG document that opens in the browser and shows something."""
    driver.find_element(By.CSS_SELECTOR, '#tabs [data-view="%s"]' % view).click()
    driver.find_element(By.CSS_SELECTOR, "#view-%s .view-tools .save" % view).click()
    saved = driver.execute_script("return window.attnlabExplorer.lastPicture")
    if not check(saved and saved["name"] == "attnlab-%s.svg" % view and len(saved["svg"]) > 1000,
                 label + ": the %s view's picture was made" % view):
        return
    path = os.path.join(work, saved["name"])
    with open(path, "w", encoding="utf-8") as out:
        out.write(saved["svg"])
    root = ElementTree.parse(path).getroot()
    check(root.tag == "{http://www.w3.org/2000/svg}svg" and float(root.get("width")) > 100,
          label + ": %s is an SVG document %s px wide" % (saved["name"], root.get("width")))
    driver.get("file://" + path)
    shot = path[:-4] + ".png"
    driver.save_screenshot(shot)
    blank = subprocess.run(["/usr/bin/python3", os.path.join(source_dir, "tests", "inspect", "png_not_blank.py"), shot],
                           capture_output=True, text=True)
    check(blank.returncode == 0, label + ": %s opened in the browser is blank: %s" % (saved["name"], blank.stdout.strip()))


def head_labels(driver, check, data, label):
    """Every mode of the head view: decoder rows are the tokens predicted, decoder keys those read; the hint says so."""
    driver.find_element(By.CSS_SELECTOR, '#tabs [data-view="head"]').click()
    tokens = data["tokens"]
    for mode in ("decoder_self", "cross", "all"):
        driver.find_element(By.CSS_SELECTOR, '#view-head .seg button[data-value="%s"]' % mode).click()
        blocks = driver.execute_script(
            "var out = {}; document.querySelectorAll('svg.headview text.tok').forEach(function (t) {"
            " var name = t.dataset.side + ':' + t.dataset.block; (out[name] = out[name] || []).push(t.textContent); });"
            "return out;")
        hint = driver.find_element(By.ID, "head-hint").text
        check(blocks.get("q:target_output") == tokens["target_output"],
              "%s: head view %s: the decoder rows are the tokens predicted %r" % (label, mode, blocks.get("q:target_output")))
        if mode != "cross":
            check(blocks.get("k:target_input") == tokens["target_input"], "%s: head view %s: decoder keys are the tokens read" % (label, mode))
        check("predicts" in hint and (mode == "cross" or "read" in hint),
              "%s: head view %s: the hint says rows are the tokens predicted: %r" % (label, mode, hint))


def unknown_word(driver, check, attnlab, runs_dir, work, open_page, label="unknown word"):
    """A word outside the vocabulary: attention.json carries it as typed, the page shows it so, marked."""
    page_dir = os.path.join(work, "unknown-page")
    train = open(os.path.join(runs_dir, "data", "train.en")).readline().split()
    sentence = " ".join(train[:2] + ["zorblax"] + train[2:])
    done = subprocess.run([attnlab, "attention", "--run", os.path.join(runs_dir, "dot"), "--text", sentence,
                           "--out", page_dir], capture_output=True, text=True)
    if not check(done.returncode == 0, label + ": attention: " + done.stderr.strip()):
        return
    data = json.load(open(os.path.join(page_dir, "attention.json")))
    tokens = data["tokens"]
    at = tokens["source_typed"].index("zorblax") if "zorblax" in tokens["source_typed"] else -1
    check(at >= 0 and tokens["source"][at] == "<unk>" and tokens["source_unknown"][at] is True and
          sum(tokens["source_unknown"]) == 1, label + ": attention.json has source <unk>, typed zorblax, unknown: %r" % tokens)
    open_page(driver, "file://" + os.path.join(page_dir, "index.html") + "#view=head&type=encoder_self", label)
    marked = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#sentence code.unk")]
    check(marked == ["zorblax?"], label + ": the sentence shows the unknown word as typed and marked: %r" % marked)
    shown = [t.text for t in driver.find_elements(By.CSS_SELECTOR, 'svg.headview text.tok[data-side="q"]')]
    check("zorblax?" in shown and "<unk>" not in shown, label + ": the head view's tokens %r" % shown)
