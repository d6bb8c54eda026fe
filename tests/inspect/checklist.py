"""checklist.py — what the explorer's Python tests share (tests/inspect/explorer_browser_test.py, serve_load_test.py,
tests/web/live_browser_test.py): a tally of checks that prints each failure as it happens, a free loopback port,
stopping a server, and two questions to a page in Chromium."""
import signal
import socket
import subprocess


class Checklist:
    def __init__(self, name):
        self.name, self.passes, self.failures = name, 0, []

    def check(self, ok, what):
        """Counts one check; prints `what` when it failed. Returns ok."""
        if ok:
            self.passes += 1
        else:
            self.failures.append(what)
            print("FAIL:", what, flush=True)
        return ok

    def finish(self):
        """The closing line ('N passed, N failed') and the exit code."""
        print("%s: %d passed, %d failed" % (self.name, self.passes, len(self.failures)))
        return 1 if self.failures else 0


def body(driver, name):
    """An attribute of the page's <body> (the explorer and the live page report their state there)."""
    from selenium.webdriver.common.by import By
    return driver.find_element(By.TAG_NAME, "body").get_attribute(name)


def console_errors(driver):
    """The page's console errors so far (needs the goog:loggingPrefs capability for the browser log)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(server, seconds=15):
    """SIGTERM to a running server; its exit code, or None when it had to be killed after `seconds`."""
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    try:
        return server.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        return None


def start_chromium(prefix):
    """Headless Chromium through Debian's chromedriver, 1360 × 1000, its console log kept: (driver, profile folder,
    to remove after driver.quit()). Exits 77 (the test skipped, saying why) when selenium, chromium or chromedriver
    is missing."""
    import os
    import shutil
    import sys
    import tempfile
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        print("SKIP: python3-selenium is not installed (tools/install-deps.sh installs it)")
        sys.exit(77)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not chromium or not os.path.exists(chromedriver):
        print("SKIP: chromium or chromium-driver is not installed (tools/install-deps.sh installs them)")
        sys.exit(77)
    profile = tempfile.mkdtemp(prefix=prefix)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                     "--user-data-dir=" + profile, "--window-size=1360,1000", "--hide-scrollbars"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    return driver, profile


def wait_for(driver, condition, seconds):
    """True when condition(driver) holds within `seconds` (asked every half second), else False."""
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        WebDriverWait(driver, seconds).until(lambda d: condition(d))
        return True
    except Exception:
        return False
