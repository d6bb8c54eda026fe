#!/usr/bin/env python3
"""serve_http_test.py — `attnlab serve` reads HTTP/1.1 as RFC 9112 writes it, answers only its own page, and tells
the page the limits it enforces (issue 47, items 5–7). Loopback only; every loop bounded.

  * strict HTTP: each malformed head the RFC names (two Content-Lengths, whitespace before a colon, obs-fold, a
    Transfer-Encoding on HTTP/1.0 or with another coding, …) is answered at once (under 1 s; --timeout is 10) with
    400 or 501 and one JSON error; the answers libmicrohttpd 0.9.75 makes itself (a Content-Length it cannot
    read, no colon, HTTP/2.0, a head over 16 KiB) are checked for their status and a prompt close;
  * a differential check: 240 generated requests, valid and malformed, each judged by Python's own HTTP parser
    (http.server's parse_request, http.client's header parser) with the RFC's framing rules applied to what it
    parsed; where the RFC is clear attnlab must accept and refuse exactly what that judge does;
  * Host and Origin: another Host (DNS rebinding) 421, a page elsewhere 403 (the text/plain POST a page can send
    with no preflight), its own page and --allow-origin's answered (that one with Access-Control-Allow-Origin, its
    preflight 204); a bad --allow-origin ends serve with its name;
  * the page's Content-Security-Policy names the SHA-256 of the page's script (computed here with hashlib) and
    frame-ancestors 'none'; every answer has X-Frame-Options: DENY;
  * run paths: relative to serve's working folder, or the folder's name outside it, in /api/runs, the page and a
    translation's "checkpoint"; no answer holds an absolute path;
  * limits: the page's config holds the server's numbers; a sentence of exactly --max-text-bytes bytes (counted in
    UTF-8, not characters) is taken and one byte more refused; at each beam size tried, the page's token bound K
    is exact: K tokens are answered, K + 1 refused (413); with the default limits a 1000-byte sentence is answered
    on the tiny run, or refused exactly as the page's bound says.
    usage: serve_http_test.py ATTNLAB_BINARY RUNS_DIR
"""
import base64
import hashlib
import http.client
import http.server
import io
import json
import os
import random
import re
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, free_port, stop  # noqa: E402

attnlab, runs_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
checks = Checklist("serve http")
check = checks.check
words = open(os.path.join(runs_dir, "data", "train.en")).read().split()
LIBRARY_STATUSES = (400, 413, 414, 431, 505)   # what libmicrohttpd answers itself, as HTML


def start(*arguments, cwd=None):
    port = free_port()
    server = subprocess.Popen([attnlab, "serve", "--port", str(port)] + list(arguments), cwd=cwd,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    check("http://127.0.0.1:%d/" % port in line, "serve started: %r %r" % (line, arguments))
    return server, port


def exchange(port, data, timeout=3.0):
    """Sends raw bytes, reads until the server closes: (status or None, headers dict, body bytes, seconds)."""
    started = time.monotonic()
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except OSError:
            pass
        try:
            while chunk := s.recv(65536):
                answer += chunk
        except OSError:
            pass
    seconds = time.monotonic() - started
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if re.match(r"HTTP/1\.[01] \d{3}", lines[0]) else None
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body, seconds


def json_error(body):
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    return parsed.get("error") if isinstance(parsed, dict) and isinstance(parsed.get("error"), str) else None


def request(port, method, path, body=None, headers=None, timeout=60):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def translate(port, text, **fields):
    return request(port, "POST", "/api/translate", json.dumps(dict(fields, text=text)).encode(),
                   {"Content-Type": "application/json"})


# ---- 1. strict HTTP, case by case ----
def strict_cases(port):
    """Each shape once: (what, request, status, who answers): attnlab with a JSON error, or libmicrohttpd with its
    own HTML before attnlab sees the request (docs/guide/explorer-and-serve.md lists those)."""
    host = b"Host: 127.0.0.1:%d\r\n" % port
    get, post = b"GET /api/runs HTTP/1.1\r\n" + host, b"POST /api/runs HTTP/1.1\r\n" + host
    chunked = b"\r\n\r\n2\r\nab\r\n0\r\n\r\n"
    cases = [
        ("two different Content-Length values", post + b"Content-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400, "ours"),
        ("Content-Length twice, the same", post + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\nab", 400, "ours"),
        ("a second Content-Length not a number", post + b"Content-Length: 2\r\nContent-Length: 2x\r\n\r\nab", 400, "ours"),
        ("a space before a colon", get + b"X-Note : a\r\n\r\n", 400, "ours"),
        ("a tab before a colon", get + b"X-Note\t: a\r\n\r\n", 400, "ours"),
        ("obs-fold on the first header", b"GET /api/runs HTTP/1.1\r\n X-Note: a\r\n" + host + b"\r\n", 400, "ours"),
        ("obs-fold of one word", get + b"X-Note: a\r\n b\r\n\r\n", 400, "ours"),
        ("obs-fold by a tab", get + b"X-Note: a\r\n\tb c\r\n\r\n", 400, "ours"),
        ("obs-fold of Content-Length", post + b"Content-Length: 2\r\n 0\r\n\r\nab", 400, "ours"),
        ("Transfer-Encoding on HTTP/1.0",
         b"POST /api/runs HTTP/1.0\r\n" + host + b"Transfer-Encoding: chunked" + chunked, 400, "ours"),
        ("Transfer-Encoding: chunked, identity", post + b"Transfer-Encoding: chunked, identity" + chunked, 400, "ours"),
        ("Transfer-Encoding: identity", post + b"Transfer-Encoding: identity\r\n\r\nab", 400, "ours"),
        ("Transfer-Encoding: gzip, chunked", post + b"Transfer-Encoding: gzip, chunked" + chunked, 501, "ours"),
        ("Transfer-Encoding beside Content-Length",
         post + b"Transfer-Encoding: chunked\r\nContent-Length: 7" + chunked, 400, "ours"),
        ("Transfer-Encoding: chunked on two lines",
         post + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked" + chunked, 400, "ours"),
        ("Host twice", get + host + b"\r\n", 400, "ours"),
        ("no Host", b"GET /api/runs HTTP/1.1\r\n\r\n", 400, "ours"),
        ("a space in the target", b"GET /api/runs x HTTP/1.1\r\n" + host + b"\r\n", 400, "ours"),
        ("a control character in a value", get + b"X-Note: a\x01b\r\n\r\n", 400, "ours"),
        ("a bare CR in a value", get + b"X-Note: a\rb\r\n\r\n", 400, "ours"),
        # A NUL ends what libmicrohttpd reads of a line (a C string): a header line starting with one would be taken
        # for the blank line that ends the head, and a request with more header lines answered 200 (fuzz.http found
        # it); read_head() finds the bytes it dropped.
        ("a header line starting with NUL", get + b"X-Note: a\r\n\x00\x00X-Next: b\r\nX-Last: c\r\n\r\n", 400, "ours"),
        ("a line of NULs alone", get + b"\x00\x00\r\n\r\n", 400, "ours"),
        ("a NUL led line with bare LFs", b"GET /api/runs HTTP/1.1\n" + host[:-2] + b"\n\x00\n\n", 400, "ours"),
        ("a NUL inside a value", get + b"X-Note: a\x00b\r\n\r\n", 400, "ours"),
        ("a NUL right after the colon", get + b"X-Note:\x00b\r\n\r\n", 400, "ours"),
        ("a NUL in the target", b"GET /api/runs\x00x HTTP/1.1\r\n" + host + b"\r\n", 400, "ours"),
        ("a NUL in the method", b"GE\x00T /api/runs HTTP/1.1\r\n" + host + b"\r\n", 400, "ours"),
        ("bytes beyond ASCII in the target", b"GET /\xc3\xa9 HTTP/1.1\r\n" + host + b"\r\n", 400, "ours"),
        ("a Content-Length not a number", post + b"Content-Length: 2x\r\n\r\nab", 400, "library"),
        ("a Content-Length list", post + b"Content-Length: 2, 2\r\n\r\nab", 400, "library"),
        ("a Content-Length past 2^64", post + b"Content-Length: 99999999999999999999999\r\n\r\nab", 413, "library"),
        ("a header line without a colon", get + b"X-Note a\r\n\r\n", 400, "library"),
        ("HTTP/2.0", b"GET /api/runs HTTP/2.0\r\n" + host + b"\r\n", 505, "library"),
        ("HTTP/0.9", b"GET /api/runs HTTP/0.9\r\n" + host + b"\r\n", 505, "library"),
        ("a 20 KB header", get + b"X-Note: " + b"a" * 20000 + b"\r\n\r\n", 431, "library"),
        ("a malformed chunk", post + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n", 400, "library"),
    ]
    for what, data, expected, who in cases:
        status, headers, body, seconds = exchange(port, data)
        ours = bool(json_error(body)) and headers.get("x-frame-options") == "DENY"
        check(status == expected and seconds < 1.0 and ours == (who == "ours"),
              "%s: %r in %.2f s, %r (expected %d at once, from %s)" % (what, status, seconds, body[:120], expected, who))
    status, _, body, _ = exchange(port, get + b"X-Note: a\r\n\x00 junk\r\n\r\n")
    check(status == 400 and "NUL" in json_error(body), "a NUL led header line is refused for its NUL: %r" % body[:200])
    for what, data in [("spurious blank lines before the request line", b"\r\n\r\n" + get + b"\r\n"),
                       ("bare LFs", b"GET /api/runs HTTP/1.1\n" + host[:-2] + b"\nX-Note: a\n\n"),
                       ("an empty value", get + b"X-Note:\r\n\r\n"), ("a query", b"GET /api/runs?a=b HTTP/1.1\r\n" + host + b"\r\n"),
                       ("blanks after a value", get + b"X-Note: a \t\r\n\r\n")]:
        status, _, body, _ = exchange(port, data)
        check(status == 200, "%s are no NUL: %r %r" % (what, status, body[:200]))
    status, _, body, _ = exchange(port, post + b"Transfer-Encoding: chunked" + chunked)
    check(status == 405 and json_error(body), "a well-formed chunked POST reaches the router (405 on /api/runs): %r" % status)


# ---- 2. the differential check against Python's parser ----
class PythonJudge(http.server.BaseHTTPRequestHandler):
    """Python's own request parsing (http.server's parse_request and http.client.parse_headers) on raw bytes."""

    def __init__(self, raw):   # not a real handler: no socket, no server; parse_request alone
        self.rfile, self.wfile, self.client_address = io.BytesIO(raw), io.BytesIO(), ("127.0.0.1", 0)
        self.refused = None
        self.raw_requestline = self.rfile.readline(65537)
        self.parsed = self.parse_request()

    def send_error(self, code, message=None, explain=None):
        self.refused = code

    def log_message(self, *arguments):
        pass


TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def judgement(raw):
    """'refuse' or 'accept' as Python's parser and the RFC's framing rules say; None where the RFC lets a server
    choose (obs-fold, identical Content-Lengths, Transfer-Encoding beside Content-Length, control characters)."""
    judge = PythonJudge(raw)
    if not judge.parsed or judge.headers.defects:
        return "refuse"
    version, items = judge.request_version, judge.headers.items()
    must, either = [], []
    must.append(any(not TOKEN.fullmatch(name) for name, _ in items))                   # RFC 9110 5.1
    either.append(any("\r" in value or "\n" in value for _, value in items))            # obs-fold: RFC 9112 5.2
    either.append(any(re.search(r"[\x00-\x08\x0a-\x1f\x7f]", value) for _, value in items))   # RFC 9110 5.5
    hosts = judge.headers.get_all("Host") or []
    must.append(len(hosts) > 1 or (version == "HTTP/1.1" and not hosts))                 # RFC 9112 3.2
    either.append(not hosts)                                                              # HTTP/1.0: serve's choice
    codings = [c.strip().lower() for v in judge.headers.get_all("Transfer-Encoding") or [] for c in v.split(",") if c.strip()]
    lengths = judge.headers.get_all("Content-Length") or []
    if judge.headers.get_all("Transfer-Encoding"):
        must.append(version == "HTTP/1.0" or not codings or codings[-1] != "chunked" or set(codings) != {"chunked"})
        either.append(bool(lengths) or codings.count("chunked") > 1)                    # RFC 9112 6.1, 6.3
    elif lengths:
        numbers = [n.strip() for v in lengths for n in v.split(",")]
        must.append(not all(n.isdigit() for n in numbers) or len(set(numbers)) > 1)     # RFC 9112 6.3
        either.append(len(numbers) > 1)                                                   # RFC 9110 8.6
    return "refuse" if any(must) else None if any(either) else "accept"


def generated_requests(port, count, seed=47):
    """Requests built from valid and malformed parts (the seed fixes them): (raw bytes, what it is made of)."""
    random.seed(seed)
    host = "Host: 127.0.0.1:%d" % port
    framings = {"none": ([], b""), "length": (["Content-Length: 2"], b"ab"),
                "length twice": (["Content-Length: 2", "Content-Length: 2"], b"ab"),
                "lengths differ": (["Content-Length: 2", "Content-Length: 3"], b"abc"),
                "length +2": (["Content-Length: +2"], b"ab"), "length 2x": (["Content-Length: 2x"], b"ab"),
                "chunked": (["Transfer-Encoding: chunked"], b"2\r\nab\r\n0\r\n\r\n"),
                "CHUNKED": (["Transfer-Encoding: CHUNKED"], b"2\r\nab\r\n0\r\n\r\n"),
                "chunked, identity": (["Transfer-Encoding: chunked, identity"], b"2\r\nab\r\n0\r\n\r\n"),
                "gzip, chunked": (["Transfer-Encoding: gzip, chunked"], b"2\r\nab\r\n0\r\n\r\n"),
                "gzip": (["Transfer-Encoding: gzip"], b"ab"),
                "chunked and length": (["Transfer-Encoding: chunked", "Content-Length: 7"], b"2\r\nab\r\n0\r\n\r\n")}
    mutations = {"none": lambda h: h, "space before colon": lambda h: h + ["X-Note : a"],
                 "tab before colon": lambda h: h + ["X-Note\t: a"], "fold first": lambda h: [" X-Note: a"] + h,
                 "fold": lambda h: h + ["X-Note: a\r\n b"], "not a token": lambda h: h + ["X(Note): a"],
                 "no colon": lambda h: h + ["X-Note a"], "host twice": lambda h: h + [host],
                 "no host": lambda h: [x for x in h if x != host], "control": lambda h: h + ["X-Note: a\x01b"],
                 "trailing blank": lambda h: h + ["X-Note: a "]}
    versions = ["HTTP/1.1"] * 3 + ["HTTP/1.0", "HTTP/2.0"]
    targets = ["/api/runs"] * 4 + ["/api/runs x"]
    for _ in range(count):
        framing, mutation = random.choice(list(framings)), random.choice(list(mutations))
        version, target = random.choice(versions), random.choice(targets)
        headers, body = framings[framing]
        lines = mutations[mutation]([host] + headers)
        method = "GET" if framing == "none" else "POST"
        raw = ("%s %s %s\r\n" % (method, target, version) + "".join(l + "\r\n" for l in lines) + "\r\n").encode() + body
        yield raw, "%s %s %s, framing %s, %s" % (method, target, version, framing, mutation)


def differential(port, count=240):
    compared = agreed = html = 0
    for raw, what in generated_requests(port, count):
        expected = judgement(raw)
        status, headers, body, seconds = exchange(port, raw)
        got = "accept" if status in (200, 405) else "refuse" if status in (400, 501, 505) else "other %r" % status
        if seconds >= 1.0 or got.startswith("other"):
            check(False, "differential: %s: %s after %.2f s (no answer at once)" % (what, got, seconds))
            continue
        if got == "refuse" and not json_error(body):   # libmicrohttpd's own answer: HTML, with no Content-Type
            html += 1
            check(status in LIBRARY_STATUSES and "content-type" not in headers,
                  "differential: %s: a %r without a JSON error is not libmicrohttpd's" % (what, status))
        if expected is not None:
            compared += 1
            agreed += check(got == expected, "differential: %s: attnlab %s (%r), Python and the RFC %s" %
                            (what, got, status, expected))
    print("serve http: differential check: %d requests, %d where the RFC is clear, %d agreed; %d answered by "
          "libmicrohttpd's own HTML" % (count, compared, agreed, html))
    check(compared >= count // 2, "differential: most generated requests are ones the RFC decides (%d)" % compared)


def judge_self_test():
    """The judge itself can tell: planted shapes each get the verdict the RFC gives them."""
    cases = {b"GET / HTTP/1.1\r\nHost: a\r\n\r\n": "accept", b"GET / HTTP/1.1\r\nHost : a\r\n\r\n": "refuse",
             b"GET / HTTP/1.1\r\n\r\n": "refuse", b"GET / HTTP/1.0\r\n\r\n": None,
             b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n": "refuse",
             b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n": "refuse",
             b"GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n": None}
    for raw, verdict in cases.items():
        check(judgement(raw) == verdict, "the judge: %r → %r (expected %r)" % (raw, judgement(raw), verdict))


# ---- 3. Host, Origin, and the headers of the page ----
def audience_cases(port):
    own = "http://127.0.0.1:%d" % port
    for host, expected in (("evil.example:%d" % port, 421), ("127.0.0.1", 421), ("127.0.0.1:%d" % (port + 1), 421),
                           ("localhost:%d" % port, 200), ("[::1]:%d" % port, 200), ("127.0.0.1:%d " % port, 200)):
        status, _, body, _ = exchange(port, b"GET /api/runs HTTP/1.1\r\nHost: %s\r\n\r\n" % host.encode())
        check(status == expected and (status == 200 or json_error(body)), "Host %r: %r (expected %d)" % (host, status, expected))
    sentence = " ".join(words[:6])
    for origin, expected in (("http://evil.example", 403), ("null", 403), (own, 200), ("http://localhost:%d" % port, 403)):
        status, _, body = request(port, "POST", "/api/translate", json.dumps({"text": sentence}).encode(),
                                  {"Content-Type": "text/plain", "Origin": origin})
        check(status == expected, "a text/plain POST with Origin %r: %r (expected %d) %r" % (origin, status, expected, body[:120]))
    status, headers, page = request(port, "GET", "/")
    script = re.findall(rb"<script>(.*?)</script>", page, re.S)
    digest = base64.b64encode(hashlib.sha256(script[0]).digest()).decode() if len(script) == 1 else None
    policy = headers.get("content-security-policy", "")
    check(digest and "script-src 'sha256-%s'" % digest in policy and "frame-ancestors 'none'" in policy and
          "default-src 'none'" in policy, "the page's Content-Security-Policy names its script's SHA-256: %r" % policy)
    check(headers.get("x-frame-options") == "DENY", "the page may not be framed: %r" % headers.get("x-frame-options"))
    isolation = (headers.get("cross-origin-opener-policy"), headers.get("cross-origin-embedder-policy"))
    check(isolation == ("same-origin", "require-corp"), "the page is cross-origin isolated (COOP, COEP): %r" % (isolation,))
    status, headers, _ = request(port, "GET", "/api/runs")
    check(headers.get("x-frame-options") == "DENY" and "default-src 'none'" in headers.get("content-security-policy", ""),
          "a JSON answer has the frame and content policies: %r" % headers)


def allowed_origin_cases():
    teacher = "http://teacher.example:3000"
    server, port = start("--run", os.path.join(runs_dir, "dot"), "--allow-origin", teacher,
                         cwd=os.path.join(runs_dir, "data"))
    try:
        status, headers, body = request(port, "POST", "/api/translate", json.dumps({"text": words[0]}).encode(),
                                        {"Content-Type": "application/json", "Origin": teacher})
        check(status == 200 and headers.get("access-control-allow-origin") == teacher and headers.get("vary") == "Origin",
              "an --allow-origin page is answered, with Access-Control-Allow-Origin: %r %r" % (status, headers))
        status, headers, _ = request(port, "OPTIONS", "/api/translate", None,
                                     {"Origin": teacher, "Access-Control-Request-Method": "POST",
                                      "Access-Control-Request-Headers": "content-type"})
        check(status == 204 and headers.get("access-control-allow-origin") == teacher and
              "POST" in headers.get("access-control-allow-methods", ""), "its preflight: %r %r" % (status, headers))
        status, _, _ = request(port, "POST", "/api/translate", b"{}", {"Origin": "http://other.example:3000"})
        check(status == 403, "another origin is still refused: %r" % status)
        check_paths(port, "dot", "outside the working folder")
    finally:
        check(stop(server) == 0, "serve with --allow-origin stops cleanly")
    for bad in ("teacher.example", "http://teacher.example/page", "ftp://x"):
        ended = subprocess.run([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--port", str(free_port()),
                                "--allow-origin", bad], capture_output=True, text=True, timeout=60)
        check(ended.returncode != 0 and "--allow-origin" in ended.stderr and bad in ended.stderr,
              "--allow-origin %r is refused, naming it: %r" % (bad, ended.stderr.strip()))
    helped = subprocess.run([attnlab, "serve", "--help"], capture_output=True, text=True, timeout=60)
    check("--allow-origin" in helped.stdout, "serve --help lists --allow-origin")


# ---- 4. run paths ----
def check_paths(port, name, where):
    _, _, runs = request(port, "GET", "/api/runs")
    _, _, page = request(port, "GET", "/")
    status, _, answer = translate(port, " ".join(words[:4]))
    checkpoint = json.loads(answer).get("checkpoint", "") if status == 200 else ""
    check(json.loads(runs)["runs"][0] == name and checkpoint.startswith(name + "/checkpoints/"),
          "%s: the run is shown as %r: /api/runs %r, checkpoint %r" % (where, name, runs, checkpoint))
    check(not any(runs_dir.encode() in text for text in (runs, page, answer)),
          "%s: no answer holds the absolute path %s" % (where, runs_dir))


# ---- 5. limits that agree with the page ----
def page_limits(port):
    _, _, page = request(port, "GET", "/")
    config = re.search(rb'id="explorer-config">(.*?)</script>', page, re.S).group(1)
    return json.loads(config)["limits"]


def sentence_of(tokens):
    return " ".join((words * (tokens // len(words) + 1))[:tokens])


def limit_cases(port):
    limits = page_limits(port)
    check((limits["text_bytes"], limits["beam"], limits["ig_steps"], limits["answer_mb"]) == (1000, 16, 64, 64),
          "the page holds the server's default limits: %r" % {k: v for k, v in limits.items() if k != "tokens"})
    exact = "é" * 500   # 1000 bytes in 500 characters: the limit is in bytes
    status, _, body = translate(port, exact)
    check(len(exact.encode()) == 1000 and status == 200, "a 1000-byte sentence (500 characters) is taken: %r %r" % (status, body[:100]))
    status, _, body = translate(port, exact + "x")
    check(status == 400 and "1001 bytes" in (json_error(body) or ""), "1001 bytes are refused: %r %r" % (status, body[:100]))
    tokens = 1
    while len(sentence_of(tokens + 1).encode()) <= 1000:
        tokens += 1
    text, bound = sentence_of(tokens), limits["tokens"][0][0]
    status, _, _ = translate(port, text)
    check(status == 200 if bound < 0 or tokens <= bound else status == 413,
          "defaults: a %d-byte sentence of %d words: %r, as the page's bound %r says" % (len(text.encode()), tokens, status, bound))
    print("serve http: with the default limits a %d-byte sentence of %d words on the tiny run: %r (the page's "
          "token bound at the run's beam: %r)" % (len(text.encode()), tokens, status, bound))


def token_bound_cases():
    server, port = start("--run", os.path.join(runs_dir, "dot"), "--max-answer-mb", "1", "--max-text-bytes", "16384")
    try:
        limits = page_limits(port)
        for beam in (0, 1, 4, 16):
            bound = limits["tokens"][0][beam]
            if not check(bound > 0, "beam %d: the page states a token bound under --max-answer-mb 1: %r" % (beam, bound)):
                continue
            taken, _, _ = translate(port, sentence_of(bound), beam=beam)
            refused, _, body = translate(port, sentence_of(bound + 1), beam=beam)
            check(taken == 200 and refused == 413 and "--max-answer-mb" in (json_error(body) or ""),
                  "beam %d: the page's bound %d is exact: %d tokens %r, %d tokens %r" % (beam, bound, bound, taken,
                                                                                       bound + 1, refused))
        print("serve http: the page's token bounds under --max-answer-mb 1, beam 0 … 16: %r" % limits["tokens"][0])
    finally:
        check(stop(server) == 0, "serve with --max-answer-mb 1 stops cleanly")


judge_self_test()
server, port = start("--run", os.path.join(runs_dir, "dot"), "--run", os.path.join(runs_dir, "mixed"),
                     cwd=os.path.dirname(runs_dir))
try:
    strict_cases(port)
    differential(port)
    audience_cases(port)
    check_paths(port, os.path.basename(runs_dir) + "/dot", "inside the working folder")
    limit_cases(port)
finally:
    check(stop(server) == 0, "serve stops cleanly")
allowed_origin_cases()
token_bound_cases()
sys.exit(checks.finish())
