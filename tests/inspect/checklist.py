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
