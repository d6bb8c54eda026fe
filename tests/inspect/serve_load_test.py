#!/usr/bin/env python3
"""serve_load_test.py — `attnlab serve` under bad requests and a bounded load, on 127.0.0.1 only.

Starts the server on a free loopback port with a trained run (tests/inspect/explorer_runs.sh), then:
  * bad requests, each answered with the right status and a JSON {"error": …}: malformed JSON, a JSON array, no
    text, a number for text, an empty and a blank sentence, a sentence over --max-text-bytes, invalid UTF-8, a run
    and a beam out of range (400); a 1 MB body (413); "/../" paths and other unknown pages (404, never a file);
  * 1,000 requests with 8 in flight (translations of test sentences, the page, malformed JSON), every answer
    checked: the translations are attention.json of the sentence sent;
  * the process is alive after, and its resident memory after the 1,000 is within 10% (+ 4 MiB) of what it was
    after the first 200 (it does not grow with the number of requests);
  * SIGTERM stops it cleanly: exit 0 within 15 s;
  * with --max-in-flight 1 --queue 2, 16 requests at once are each translated or refused with 503 and a JSON
    error (serve_attack_test.py checks Retry-After).
Every request goes to 127.0.0.1 and the loop is bounded in count and time (a 300 s deadline).
    usage: serve_load_test.py ATTNLAB_BINARY RUNS_DIR [--sanitized]
"""
import concurrent.futures
import http.client
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, free_port, stop  # noqa: E402

attnlab, runs_dir = sys.argv[1:3]
sanitized = "--sanitized" in sys.argv   # AddressSanitizer's quarantine keeps freed memory resident: not checked
checks = Checklist("serve load")
check = checks.check



port = free_port()
server = subprocess.Popen([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--port", str(port),
                           "--max-text-bytes", "400"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = server.stdout.readline()
check("http://127.0.0.1:%d/" % port in line, "serve listens on 127.0.0.1 by default: " + line.strip())


def request(method, path, body=None, content_type="application/json"):
    """(status, parsed JSON or None, raw bytes); (None, None, error text) when the connection failed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        headers = {"Content-Type": content_type} if body is not None else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        return response.status, parsed, raw
    except OSError as error:
        return None, None, str(error).encode()
    finally:
        connection.close()


def rss_kib():
    for field in open("/proc/%d/status" % server.pid):
        if field.startswith("VmRSS:"):
            return int(field.split()[1])
    return None


def refused(status, method, path, body, why):
    got, parsed, raw = request(method, path, body)
    check(got == status and isinstance(parsed, dict) and isinstance(parsed.get("error"), str) and parsed["error"],
          "%s: expected %d with a JSON error, got %r %r" % (why, status, got, raw[:200]))
    return parsed


# Sentences of the training data: every word is in the vocabulary, so the answer's tokens are the words sent.
sentences = [s.strip() for s in open(os.path.join(runs_dir, "data", "train.en")) if s.strip()][:50]
try:
    # ---- bad requests ----
    translate = "/api/translate"
    refused(400, "POST", translate, b'{"text": ', "malformed JSON")
    refused(400, "POST", translate, b'["a", "b"]', "a JSON array")
    refused(400, "POST", translate, b'{"run": 0}', "no text")
    refused(400, "POST", translate, b'{"text": 42}', "a number for text")
    answer = refused(400, "POST", translate, b'{"text": ""}', "an empty sentence")
    check(answer is not None and "empty" in answer.get("error", ""), "the empty sentence's message says so: %r" % answer)
    refused(400, "POST", translate, b'{"text": "  \\t "}', "a blank sentence")
    refused(400, "POST", translate, json.dumps({"text": "a " * 300}).encode(), "a sentence over --max-text-bytes")
    refused(400, "POST", translate, b'{"text": "a \xff\xfe girl"}', "invalid UTF-8 in the JSON")
    refused(400, "POST", translate, b'{"text": "a girl", "run": 3}', "a run that is not there")
    refused(400, "POST", translate, b'{"text": "a girl", "beam": 99}', "a beam out of range")
    refused(400, "POST", translate, b'{"text": "a girl", "beam": "wide"}', "a beam that is not a number")
    refused(413, "POST", translate, b'{"text": "' + b"a" * (1024 * 1024) + b'"}', "a 1 MB body")
    for path in ["/../etc/passwd", "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/api/../../etc/passwd",
                 "/index.html", "/explorer.js", "/api/translate/../runs"]:
        got, parsed, raw = request("GET", path)
        check(got in (400, 404) and isinstance(parsed, dict) and "error" in parsed and b"root:" not in raw,
              "GET %s: expected 404 (or 400) with a JSON error, got %r %r" % (path, got, raw[:120]))
    got, _, raw = request("GET", "/")
    check(got == 200 and b'id="explorer-config"' in raw, "GET / serves the explorer page (%r)" % got)
    got, parsed, _ = request("GET", "/api/runs")
    dot = os.path.realpath(os.path.join(runs_dir, "dot"))   # shown relative to serve's folder, or by name outside it
    shown = os.path.relpath(dot, os.path.realpath(os.getcwd()))
    check(got == 200 and parsed == {"runs": [os.path.basename(dot) if shown.startswith("..") else shown]},
          "GET /api/runs: %r" % parsed)

    # ---- 1,000 requests, 8 in flight ----
    def one(n):
        if n % 10 == 0:
            got, _, raw = request("GET", "/")
            return got == 200 and b"renderNeuron" in raw, "GET / #%d: %r" % (n, got)
        if n % 10 == 1:
            got, parsed, raw = request("POST", translate, b'{"text": "a girl"')
            return got == 400 and "error" in (parsed or {}), "malformed #%d: %r %r" % (n, got, raw[:80])
        sentence = sentences[n % len(sentences)]
        got, parsed, raw = request("POST", translate, json.dumps({"text": sentence}).encode())
        ok = (got == 200 and parsed is not None and parsed.get("schema") == "attnlab-attention/2" and
              parsed["source"] == sentence and parsed["tokens"]["source"] == sentence.split() and len(parsed["maps"]) == 6)
        return ok, "translate #%d %r: %r %r" % (n, sentence, got, raw[:120])

    deadline = time.monotonic() + 300
    start = time.monotonic()
    results, warm_rss = [], None
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        for first, last in ((0, 200), (200, 1000)):
            for ok, what in pool.map(one, range(first, last)):
                results.append(ok)
                if not ok and len(checks.failures) < 20:
                    check(False, what)
            if time.monotonic() > deadline:
                break
            if first == 0:
                warm_rss = rss_kib()
    elapsed = time.monotonic() - start
    end_rss = rss_kib()
    check(len(results) == 1000 and all(results), "%d of %d answers correct" % (sum(results), len(results)))
    check(server.poll() is None, "the server is alive after the load")
    check(warm_rss is not None and end_rss is not None and (sanitized or end_rss <= warm_rss * 1.10 + 4096),
          "resident memory grew from %s KiB (after 200) to %s KiB (after 1000)" % (warm_rss, end_rss))
    print("serve load: 1000 requests, 8 in flight, in %.1f s; RSS %s KiB after 200, %s KiB after 1000 "
          "(a shared machine: times are noisy)" % (elapsed, warm_rss, end_rss))
finally:
    code = stop(server)
    rest = server.stdout.read()
    check(code == 0 and "stopped" in rest, "SIGTERM stops the server cleanly (exit %r, %r)" % (code, rest.strip()))

# ---- --max-in-flight 1 --queue 2: 16 requests at once; each is translated or refused with 503 ----
port = free_port()
server = subprocess.Popen([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--port", str(port),
                           "--max-in-flight", "1", "--queue", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
server.stdout.readline()
try:
    long_sentence = json.dumps({"text": " ".join(sentences[:6]), "beam": 4}).encode()
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda n: request("POST", "/api/translate", long_sentence), range(16)))
    statuses = [status for status, _, _ in answers]
    check(all(status == 200 or (status == 503 and "busy" in (parsed or {}).get("error", ""))
              for status, parsed, _ in answers) and 200 in statuses,
          "--max-in-flight 1: answers %r" % statuses)
    print("serve --max-in-flight 1: %d translated, %d refused (503) of 16 at once" % (statuses.count(200), statuses.count(503)))
    check(server.poll() is None, "the server is alive after the refusals")
finally:
    code = stop(server)
    rest = server.stdout.read()
    check(code == 0 and "stopped" in rest, "SIGTERM stops the server cleanly (exit %r, %r)" % (code, rest.strip()))

sys.exit(checks.finish())
