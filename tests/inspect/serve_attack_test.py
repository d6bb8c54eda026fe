#!/usr/bin/env python3
"""serve_attack_test.py — `attnlab serve` against hostile and crowded clients, on 127.0.0.1 only (issue 32).

One server (a tiny trained run, tests/inspect/explorer_runs.sh; --timeout 3, --max-answer-mb 8) takes, case by case:
  * abort attempts: a Range header of 1,000 ranges on / and on /api/translate (the whole answer, once), one of
    5,000 (over the 16 KB of headers: 431), 10,000
    request headers and a 100 KB request line (431 or 414, or the connection closed: never read whole);
  * oversized bodies however framed: a Content-Length of 200 MB (413 at once), a 20 MB chunked body (413), a sentence
    whose answer would be over --max-answer-mb (413 naming it);
  * slow clients: 50 connections sending a byte a second while 40 normal requests are timed (p95 under 1 s), and
    closed by the server once --timeout has passed; 8 silent connections do not delay a request;
  * 200 translations at once: every one answered 200 or 503 with Retry-After, none reset;
after each case the server still answers and its resident memory stays under RSS_BOUND_MIB. Then, each on a server
of its own: a second serve on the same port is refused (and the first still answers), a non-loopback --host is
warned about (before binding: it is tried on a port in use, so nothing listens beyond loopback), SIGTERM with a
slow client connected stops within 5 s, and a second SIGTERM while a long translation runs ends it at once (130).
Every request goes to 127.0.0.1; every loop is bounded in count and time. Prints the latencies it measured.
    usage: serve_attack_test.py ATTNLAB_BINARY RUNS_DIR [--sanitized]
"""
import concurrent.futures
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, free_port, stop  # noqa: E402

attnlab, runs_dir = sys.argv[1:3]
sanitized = "--sanitized" in sys.argv   # AddressSanitizer's shadow memory and quarantine: RSS not checked
RSS_BOUND_MIB = 400                     # 8 MiB answers, 2 at once, ~5x their size while computed, + the model
checks = Checklist("serve attack")
check = checks.check
words = open(os.path.join(runs_dir, "data", "train.en")).read().split()
sentence = " ".join(words[:8])


def start(*arguments, port=None):
    port = port or free_port()
    server = subprocess.Popen([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--port", str(port)] +
                              list(arguments), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    check("http://127.0.0.1:%d/" % port in line, "serve started: %r" % line)
    return server, port


def request(port, method, path, body=None, headers=None, timeout=30):
    """(status, headers, body bytes); (None, None, error text) when the connection failed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    except OSError as error:
        return None, None, repr(error).encode()
    finally:
        connection.close()


def raw(port, data, timeout=10):
    """Sends raw bytes; the status line's code, or None when the server closed the connection without one."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass   # the server may close while we still send: what it answered, if anything, is below
        try:
            first = s.recv(64)
        except OSError:
            return None
    return int(first.split()[1]) if first.startswith(b"HTTP/1.1 ") else None


def rss_mib(server):
    for field in open("/proc/%d/status" % server.pid):
        if field.startswith("VmRSS:"):
            return int(field.split()[1]) / 1024
    return None


def still_fine(server, port, case):
    status, _, _ = request(port, "GET", "/api/runs", timeout=5)
    check(server.poll() is None and status == 200, "%s: the server still answers (%r)" % (case, status))
    rss = rss_mib(server) if server.poll() is None else None
    check(sanitized or (rss is not None and rss < RSS_BOUND_MIB), "%s: RSS %s MiB (bound %d)" % (case, rss, RSS_BOUND_MIB))


def slow_client(port, stop_event, closed):
    """Sends a request header a byte a second until told to stop or the server closes the connection."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        for byte in b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % port + b"a" * 1000:
            if stop_event.wait(1.0):
                return
            s.send(bytes([byte]))
    except OSError:
        closed.append(1)
    finally:
        s.close()


def timed_requests(port, count):
    times = []
    for n in range(count):
        start_time = time.monotonic()
        if n % 2:
            status, _, _ = request(port, "POST", "/api/translate", json.dumps({"text": sentence}).encode(), timeout=10)
        else:
            status, _, _ = request(port, "GET", "/", timeout=10)
        times.append(time.monotonic() - start_time if status == 200 else 99.0)
    return sorted(times)


server, port = start("--timeout", "3", "--max-text-bytes", "16384", "--max-answer-mb", "8")
try:
    # ---- abort attempts (every raw request names the server in Host, as serve requires: serve_http_test.py) ----
    host = b"Host: 127.0.0.1:%d\r\n" % port
    _, _, page = request(port, "GET", "/")
    ranges = "bytes=" + ",".join("%d-%d" % (i, i) for i in range(1000))   # 9 KB: within the 16 KB of headers
    status, _, body = request(port, "GET", "/", headers={"Range": ranges})
    check(status == 200 and body == page, "1,000 ranges on /: %r, %d bytes (the page has %d)" % (status, len(body), len(page)))
    status, _, body = request(port, "POST", "/api/translate", json.dumps({"text": sentence}).encode(), {"Range": ranges})
    check(status == 200 and json.loads(body)["source"] == sentence, "1,000 ranges on /api/translate: %r" % status)
    ranges = "bytes=" + ",".join("%d-%d" % (i, i) for i in range(5000))   # 48 KB: over it
    code = raw(port, b"GET / HTTP/1.1\r\n" + host + b"Range: " + ranges.encode() + b"\r\n\r\n")
    check(code in (None, 431), "5,000 ranges (48 KB of header): answered %r" % code)
    still_fine(server, port, "ranges")
    headers = b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 8000) for i in range(10000))
    code = raw(port, b"GET / HTTP/1.1\r\n" + host + headers + b"\r\n")
    check(code in (None, 413, 431), "10,000 headers of 8 KB: answered %r" % code)
    code = raw(port, b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\n" + host + b"\r\n")
    check(code in (None, 414, 431), "a 100 KB request line: answered %r" % code)
    still_fine(server, port, "headers")

    # ---- bodies however framed ----
    code = raw(port, b"POST /api/translate HTTP/1.1\r\n" + host + b"Content-Length: 200000000\r\n\r\n{")
    check(code == 413, "Content-Length 200 MB: answered %r" % code)
    chunk = b"%x\r\n%s\r\n" % (1 << 20, b"a" * (1 << 20))
    code = raw(port, b"POST /api/translate HTTP/1.1\r\n" + host + b"Transfer-Encoding: chunked\r\n\r\n" + chunk * 20 + b"0\r\n\r\n")
    check(code == 413, "a 20 MB chunked body: answered %r" % code)
    status, _, body = request(port, "POST", "/api/translate", json.dumps({"text": " ".join(words[:1500])}).encode())
    check(status == 413 and b"--max-answer-mb" in body, "a sentence with too large an answer: %r %r" % (status, body[:160]))
    still_fine(server, port, "bodies")

    # ---- slow and silent clients ----
    quiet = timed_requests(port, 20)
    stop_event, closed = threading.Event(), []
    slow = [threading.Thread(target=slow_client, args=(port, stop_event, closed)) for _ in range(50)]
    for t in slow:
        t.start()
    time.sleep(1.5)
    times = timed_requests(port, 40)
    p95 = times[int(0.95 * len(times)) - 1]
    check(p95 < 1.0, "p95 latency with 50 slow clients: %.3f s (expected under 1 s)" % p95)
    time.sleep(4)   # past --timeout 3: the watchdog closes them
    check(len(closed) == 50, "the slow clients are closed after --timeout: %d of 50" % len(closed))
    stop_event.set()
    for t in slow:
        t.join()
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(8)]
    silent_times = timed_requests(port, 10)
    for s in silent:
        s.close()
    check(silent_times[-1] < 1.0, "the slowest request with 8 silent connections: %.3f s" % silent_times[-1])
    print("serve attack: p95 latency of a normal request: %.3f s alone, %.3f s with 50 slow clients, %.3f s "
          "(slowest) with 8 silent ones" % (quiet[int(0.95 * len(quiet)) - 1], p95, silent_times[-1]))
    still_fine(server, port, "slow clients")

    # ---- 200 translations at once ----
    def translate(n):
        return request(port, "POST", "/api/translate", json.dumps({"text": sentence, "beam": 2}).encode(), timeout=60)
    start_time = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=200) as pool:
        answers = list(pool.map(translate, range(200)))
    elapsed = time.monotonic() - start_time
    statuses = [status for status, _, _ in answers]
    check(all(s == 200 or (s == 503 and h.get("Retry-After")) for s, h, _ in answers),
          "200 at once: every answer 200, or 503 with Retry-After: %r" % sorted(set(map(str, statuses))))
    print("serve attack: 200 translations at once: %d answered 200, %d refused 503, %d failed, in %.1f s" %
          (statuses.count(200), statuses.count(503), sum(s not in (200, 503) for s in statuses), elapsed))
    still_fine(server, port, "200 at once")

    # ---- the same port twice; a host beyond loopback ----
    second = subprocess.run([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--port", str(port)],
                            capture_output=True, text=True, timeout=60)
    check(second.returncode == 1 and "cannot listen on 127.0.0.1:%d" % port in second.stderr,
          "a second serve on the port: exit %r, %r" % (second.returncode, second.stderr.strip()))
    wide = subprocess.run([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--host", "0.0.0.0", "--port",
                           str(port)], capture_output=True, text=True, timeout=60)
    check("warning" in wide.stderr and "trusted network" in wide.stderr and wide.returncode == 1,
          "--host 0.0.0.0 is warned about: %r" % wide.stderr.strip())
    still_fine(server, port, "port in use")
finally:
    code = stop(server)
    check(code == 0, "SIGTERM stops the server cleanly (exit %r)" % code)

# ---- SIGTERM with a slow client connected ----
server, port = start()
stop_event, closed = threading.Event(), []
slow = threading.Thread(target=slow_client, args=(port, stop_event, closed))
slow.start()
time.sleep(1.5)
start_time = time.monotonic()
code = stop(server, seconds=5)
check(code == 0, "SIGTERM with a slow client: exit %r after %.1f s (expected 0 within 5 s)" % (code, time.monotonic() - start_time))
stop_event.set()
slow.join()

# ---- a second SIGTERM while a long translation runs ----
server, port = start("--max-text-bytes", "16384", "--max-answer-mb", "1024", "--answer-budget-mb", "1024",
                     "--threads", "1", "--run",
                     os.path.join(runs_dir, "mixed"))
long_text = json.dumps({"text": " ".join(words[:260]), "run": 1}).encode()
worker = threading.Thread(target=request, args=(port, "POST", "/api/translate", long_text))
worker.start()
time.sleep(0.5)
server.send_signal(signal.SIGTERM)
time.sleep(0.5)
check(server.poll() is None, "after one SIGTERM the running translation is still being finished")
server.send_signal(signal.SIGTERM)
start_time = time.monotonic()
code = stop(server, seconds=3)
check(code == 130, "a second SIGTERM ends serve at once: exit %r after %.1f s" % (code, time.monotonic() - start_time))
worker.join()

sys.exit(checks.finish())
