#!/usr/bin/env python3
"""serve_refusals_test.py — every refusal on `attnlab serve`'s request path, one request each, with its status and
its whole JSON error checked word for word (issue 47, item 8: the branches tools/coverage.sh found untaken).

  * POST /api/contrast, /api/translate and /api/film: each field of the JSON request wrong in each way the code
    tells apart — missing, of the wrong type, empty, one past its bound, a number too large for int64, a field of
    another kind of run, a run that has no such view (the cloze run) — and the refusals made while answering (a
    position past the translation, an intervention naming a checkpoint the run does not have, a cloze question
    without @query), each beside one request that is answered, so that a refusal is not just a server that
    refuses everything;
  * the routes: every known path with a method it does not take (405), an unknown path (404);
  * the head (request_checks.cpp): a Host with no name, no port digits, six digits, a letter in its port; a Host
    without a port (port 80); Origin twice; an --allow-origin page ("null" and https included, the https one given
    as HTTPS://Teacher.example: scheme and host are case-insensitive) and its request that is not a preflight;
    Transfer-Encoding with no coding, chunked twice, "chunked,", and a coding on a line of its own;
    Content-Length three times; a control character in a value (a tab is allowed); a body one byte over the limit
    sent with a Content-Length and chunked, and a Content-Length past what serve drains (413 at once);
  * the price of a request (explorer_api.cpp): under --max-client-work 1, a sentence whose answer is over the 64 MiB
    sent and one whose integrated gradients are too much work (413, naming the option), a film too large;
  * served under --host 127.0.0.2, ::1 and localhost, the Host each must name, one run twice (shown as "dot" and
    "dot (2)"), no token bound under --max-text-bytes 10; an address not this machine's, and a name that resolves
    to none, end serve naming it.
Every request goes to a loopback address (the any-address branches — --host 0.0.0.0 — are left untaken: no test
listens beyond this machine). About a second.
    usage: serve_refusals_test.py ATTNLAB_BINARY RUNS_DIR
"""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklist import Checklist, free_port, stop  # noqa: E402

attnlab, runs_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
checks = Checklist("serve refusals")
check = checks.check
sentence = open(os.path.join(runs_dir, "sentence.txt")).read().strip()
question = open(os.path.join(runs_dir, "cloze-question.txt")).read().strip()
words = open(os.path.join(runs_dir, "data", "train.en")).read().split()
TEACHER = "http://teacher.example:3000"


def start(*arguments, host="127.0.0.1", runs=("dot", "cloze"), cwd=runs_dir):
    """serve on a free port of `host` with `runs` (by default the dot run and the cloze run: run 0 and run 1), named
    by their absolute paths from `cwd` (from the runs' folder: shown as "dot" and "cloze"): (process, port)."""
    port = free_port()
    named = [argument for run in runs for argument in ("--run", os.path.join(runs_dir, run))]
    server = subprocess.Popen([attnlab, "serve"] + named + ["--port", str(port), "--host", host] + list(arguments),
                              cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    check(":%d/" % port in line, "serve started on %s: %r %r" % (host, line, arguments))
    return server, port


def exchange(port, data, host="127.0.0.1", timeout=5.0):
    """Raw bytes sent, read until the server closes: (status or None, body bytes)."""
    answer = b""
    with socket.create_connection((host, port), timeout=timeout) as s:
        try:
            s.sendall(data)
            while chunk := s.recv(65536):
                answer += chunk
        except OSError:
            pass
    head, _, body = answer.partition(b"\r\n\r\n")
    match = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    return (int(match.group(1)) if match else None), body, head.decode("latin-1")


def error_of(body):
    """The "error" of a JSON answer, or None when the body is not {"error": "…"}."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    return parsed.get("error") if isinstance(parsed, dict) else None


def post(port, path, fields=None, raw=None, headers=None):
    """A POST of `fields` as JSON (or of the bytes `raw`): (status, body bytes, headers)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        body = raw if raw is not None else json.dumps(fields).encode()
        headers = dict({"Content-Type": "application/json"}, **(headers or {}))
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read(), {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


def refused(port, path, what, fields, status, message, raw=None):
    """One request refused: `status` and exactly `message` (a str), or a message matching it (a compiled pattern)."""
    got, body, _ = post(port, path, fields, raw)
    error = error_of(body)
    same = error == message if isinstance(message, str) else bool(error and message.fullmatch(error))
    check(got == status and same, "%s %s: %r %r (expected %d %r)" % (path, what, got, body[:300], status, message))


def whole(name, low, high, got):
    """Every API reads its number fields with json_fields.h's integer_field: one message."""
    return '"%s" must be an integer from %d to %d, got %s' % (name, low, high, got)


# ---- POST /api/contrast (contrast_api.cpp) ----
def contrast_cases(port):
    good = {"text": sentence, "target": "le chat", "position": 0, "alternative": "la"}
    status, body, _ = post(port, "/api/contrast", good)
    answer = json.loads(body) if status == 200 else {}
    check(answer.get("position") == 0 and answer.get("alternative") == "la" and answer.get("steps") == 16,
          "a contrast asked well is answered (16 steps unless asked): %r %r" % (status, body[:200]))
    not_object = ('the request body is not a JSON object: send {"text": "…", "target": "…", "position": 2, '
                  '"alternative": "a token"}')
    text = '"text" must be the source sentence: a string of 1 to 1000 bytes'
    target = '"target" must be the translation the page shows: a string of 1 to 4000 bytes'
    alternative = '"alternative" must be the token to contrast with the chosen one: a string of 1 to 200 bytes'
    cases = [("not JSON", None, not_object, b"{text"), ("an array", None, not_object, b"[1, 2]"),
             ("a string", None, not_object, b'"text"'), ("invalid UTF-8", None, not_object, b'{"text": "\xff"}'),
             ("run as a string", {"run": "0"}, whole("run", 0, 1, '"0"'), None),
             ("run 1.5", {"run": 1.5}, whole("run", 0, 1, "1.5"), None),
             ("run -1", {"run": -1}, whole("run", 0, 1, "-1"), None),
             ("run 2 of 2", {"run": 2}, whole("run", 0, 1, "2"), None),
             ("run 2^64 - 1", {"run": 2**64 - 1}, whole("run", 0, 1, str(2**64 - 1)), None),
             ("the cloze run", {"run": 1}, "a cloze run has no decoding steps to contrast: the contrast is for "
                                           "translation runs", None),
             ("no text", {"text": None}, text, None), ("text a number", {"text": 5}, text, None),
             ("text empty", {"text": ""}, text, None), ("text of 1001 bytes", {"text": "a" * 1001}, text, None),
             ("no target", {"target": None}, target, None), ("target a list", {"target": ["le"]}, target, None),
             ("target empty", {"target": ""}, target, None),
             ("target of 4001 bytes", {"target": "a" * 4001}, target, None),
             ("no alternative", {"alternative": None}, alternative, None),
             ("alternative empty", {"alternative": ""}, alternative, None),
             ("alternative of 201 bytes", {"alternative": "a" * 201}, alternative, None),
             ("no position", {"position": None}, '"position" (the decoder position, from 0) is missing', None),
             ("position -1", {"position": -1}, whole("position", 0, 4000, "-1"), None),
             ("position 4001", {"position": 4001}, whole("position", 0, 4000, "4001"), None),
             ("position as a string", {"position": "0"}, whole("position", 0, 4000, '"0"'), None),
             ("ig_steps 0", {"ig_steps": 0}, whole("ig_steps", 1, 64, "0"), None),
             ("ig_steps 65", {"ig_steps": 65}, whole("ig_steps", 1, 64, "65"), None),
             ("ig_steps true", {"ig_steps": True}, whole("ig_steps", 1, 64, "true"), None)]
    for what, change, message, raw in cases:
        fields = {k: v for k, v in dict(good, **(change or {})).items() if v is not None}
        refused(port, "/api/contrast", what, fields, 400, message, raw)
    refused(port, "/api/contrast", "a position past the translation", dict(good, position=40), 400,
            "contrast '40:la': position 40 is past the translation, whose decoder positions are 0 to 2")
    refused(port, "/api/contrast", "an alternative not in the vocabulary", dict(good, alternative="zzqq"), 400,
            "contrast '0:zzqq': 'zzqq' is not a token of the target vocabulary")


# ---- POST /api/translate and /api/film (explorer_api.cpp) ----
def translate_cases(port):
    not_object = ('the request body is not a JSON object (or not valid UTF-8): send {"text": "a sentence", '
                  '"run": 0, "beam": 1}')
    lm_only = '"%s" is for a language model\'s run; this run translates ("beam", "ig_steps")'
    array = '"interventions" must be an array of at most 64 strings'
    cases = [("not JSON", None, not_object, b"text=a"), ("an array", None, not_object, b"[]"),
             ("invalid UTF-8", None, not_object, b'{"text": "a\xc3"}'),
             ("no text", {"run": 0}, '"text" (a string) is missing', None),
             ("text a number", {"text": 7}, '"text" (a string) is missing', None),
             ("text of blanks", {"text": " \t\n"}, '"text" is empty: type a sentence', None),
             ("text of 1001 bytes", {"text": "a" * 1001},
              '"text" has 1001 bytes, more than the 1000 this server accepts (--max-text-bytes)', None),
             ("run 2 of 2", {"text": sentence, "run": 2}, whole("run", 0, 1, "2"), None),
             ("run as a string", {"text": sentence, "run": "1"}, whole("run", 0, 1, '"1"'), None),
             ("beam -1", {"text": sentence, "beam": -1}, whole("beam", 0, 16, "-1"), None),
             ("beam 17", {"text": sentence, "beam": 17}, whole("beam", 0, 16, "17"), None),
             ("ig_steps 65", {"text": sentence, "ig_steps": 65}, whole("ig_steps", 0, 64, "65"), None),
             ("ig_steps 1.5", {"text": sentence, "ig_steps": 1.5}, whole("ig_steps", 0, 64, "1.5"), None),
             ("interventions a string", {"text": sentence, "interventions": "ablate:cross:0.1"}, array, None),
             ("65 interventions", {"text": sentence, "interventions": ["ablate:cross:0.1"] * 65}, array, None),
             ("an intervention a number", {"text": sentence, "interventions": [3]},
              '"interventions" holds 3, not a string like "ablate:cross:0.1"', None),
             ("an intervention of 201 bytes", {"text": sentence, "interventions": ["a" * 201]},
              '"interventions" holds "%s, not a string like "ablate:cross:0.1"' % ("a" * 59), None),
             ("interventions on the cloze run", {"text": question, "run": 1, "interventions": ["ablate:cross:0.1"]},
              'a cloze run takes no "interventions"', None),
             ("an intervention of no kind", {"text": sentence, "interventions": ["bogus"]},
              "\"interventions\": bogus: 'bogus' is not a kind of intervention: write ablate:USE:L.H (USE: cross, "
              "encoder or decoder), mask:source:S or swap:SIDE.L=CHECKPOINT", None)]
    cases += [("%s on a translation run" % name, {"text": sentence, name: 1}, lm_only % name, None)
              for name in ("max_tokens", "temperature", "top_k", "top_p", "seed")]
    for what, fields, message, raw in cases:
        refused(port, "/api/translate", what, fields, 400, message, raw)
    # A swap from a checkpoint the run does not have: the message names the run as the page shows it, never its
    # folder on this disk (serve was given the absolute path: replaced by the run's name wherever it stands).
    refused(port, "/api/translate", "a swap from an averaged checkpoint the run lacks",
            {"text": sentence, "interventions": ["swap:encoder.0=average"]}, 400,
            "\"interventions\": swap:encoder.0=average: 'dot' has no averaged checkpoint "
            "(checkpoints/average.safetensors); write one with attnlab average --run dot")
    refused(port, "/api/translate", "a swap from a step the run did not keep",
            {"text": sentence, "interventions": ["swap:encoder.0=7"]}, 400,
            '"interventions": swap:encoder.0=7: the run has no checkpoint of step 7 '
            '(it keeps step-00000040.safetensors)')
    status, body, _ = post(port, "/api/translate", {"text": sentence, "interventions": ["ablate:cross:0.1"]})
    answer = json.loads(body) if status == 200 else {}
    check(answer.get("intervention", {}).get("specs") == ["ablate:cross:0.1"] and
          answer["intervention"].get("original") and answer.get("checkpoint", "").startswith("dot/checkpoints/"),
          "an intervention asked well is answered with the original beside it: %r %r" % (status, body[:200]))
    status, body, _ = post(port, "/api/translate", {"text": question, "run": 1})
    check(status == 200 and json.loads(body).get("checkpoint", "").startswith("cloze/"),
          "a cloze question is answered, its checkpoint shown in the run: %r %r" % (status, body[:200]))
    status, body, _ = post(port, "/api/translate", {"text": "no query here", "run": 1})
    check(status == 400 and "@query" in (error_of(body) or ""),
          "a cloze question without @query is refused while answering, naming @query: %r %r" % (status, body[:200]))


def film_cases(port):
    target = '"target" must be the translation every frame is forced on: a string of 1 to 4000 bytes'
    for what, fields, message in [
            ("the cloze run", {"run": 1, "text": question, "target": "x"},
             "a cloze run has no film: the film view is for translation runs"),
            ("no text", {"target": "les"}, '"text" (a string) is missing'),
            ("no target", {"text": sentence}, target), ("target a number", {"text": sentence, "target": 1}, target),
            ("target empty", {"text": sentence, "target": ""}, target),
            ("target of 4001 bytes", {"text": sentence, "target": "a" * 4001}, target)]:
        refused(port, "/api/film", what, fields, 400, message)
    status, body, _ = post(port, "/api/film", {"text": sentence, "target": "les"})
    check(status == 200 and json.loads(body).get("run") == "dot",
          "a film asked well is answered: %r %r" % (status, body[:120]))


# ---- the routes (explorer_router) ----
def route_cases(port):
    host = b"Host: 127.0.0.1:%d\r\n" % port
    for method, path, status, message in [
            ("POST", "/", 405, "method POST is not allowed on /"),
            ("PUT", "/api/runs", 405, "method PUT is not allowed on /api/runs"),
            ("GET", "/api/translate", 405, "method GET is not allowed on /api/translate"),
            ("GET", "/api/film", 405, "method GET is not allowed on /api/film"),
            ("DELETE", "/api/contrast", 405, "method DELETE is not allowed on /api/contrast"),
            ("GET", "/api/nothing", 404, "no such page: the explorer is at /"),
            ("POST", "/index.html", 404, "no such page: the explorer is at /")]:
        line = b"%s %s HTTP/1.1\r\n" % (method.encode(), path.encode())
        got, body, _ = exchange(port, line + host + b"Content-Length: 0\r\n\r\n")
        check(got == status and error_of(body) == message,
              "%s %s: %r %r (expected %d)" % (method, path, got, body[:200], status))
    got, body, head = exchange(port, b"HEAD / HTTP/1.1\r\n" + host + b"\r\n")
    check(got == 200 and body == b"" and "text/html" in head,
          "HEAD / is the page's head alone: %r %r" % (got, head[:200]))


# ---- the head (request_checks.cpp, http_server.cpp) ----
def head_cases(port):
    host = b"Host: 127.0.0.1:%d\r\n" % port
    get, post_line = b"GET /api/runs HTTP/1.1\r\n", b"POST /api/runs HTTP/1.1\r\n"
    served = "127.0.0.1:%d" % port
    not_ours = ("this server answers to %s, not to the Host %%s: a page reached under another name (DNS rebinding) "
                "may not use it; to serve under a name, start serve with --host NAME" % served)
    coding = "Transfer-Encoding %s does not end in chunked once, so the body's end cannot be found (RFC 9112, 6.3)"
    chunked = b"\r\n2\r\nab\r\n0\r\n\r\n"
    cases = [
        ("a Host with no name", get + b"Host: :%d\r\n\r\n" % port, 400, 'the Host ":%d" is not host[:port]' % port),
        ("a Host with no port digits", get + b"Host: 127.0.0.1:\r\n\r\n", 400,
         'the Host "127.0.0.1:" is not host[:port]'),
        ("a Host with six port digits", get + b"Host: 127.0.0.1:123456\r\n\r\n", 400,
         'the Host "127.0.0.1:123456" is not host[:port]'),
        ("a Host with a letter in its port", get + b"Host: 127.0.0.1:80a\r\n\r\n", 400,
         'the Host "127.0.0.1:80a" is not host[:port]'),
        ("a Host in brackets without a port", get + b"Host: [::1]\r\n\r\n", 421, not_ours % '"[::1]"'),
        ("Origin twice", get + host + b"Origin: %s\r\nOrigin: %s\r\n\r\n" % (TEACHER.encode(), TEACHER.encode()), 400,
         "Origin is given more than once"),
        ("Transfer-Encoding of no coding", post_line + host + b"Transfer-Encoding: ,\r\n" + chunked, 400,
         coding % '","'),
        ("chunked twice", post_line + host + b"Transfer-Encoding: chunked, chunked\r\n" + chunked, 400,
         coding % '"chunked, chunked"'),
        ("gzip on a line of its own", post_line + host + b"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n" +
         chunked, 501,
         'the transfer coding "gzip" is not one this server decodes: it takes chunked alone (RFC 9112, 6.1)'),
        ("chunked with a comma after it", post_line + host + b"Transfer-Encoding: chunked,\r\n" + chunked, 400,
         'Transfer-Encoding "chunked,": write it as one line, exactly "chunked"'),
        ("Content-Length three times", post_line + host + b"Content-Length: 1\r\nContent-Length: 2\r\nContent-Length: 3"
         b"\r\n\r\nabc", 400, 'Content-Length is given 3 times ("1", "2"): a proxy and this server could take '
         'different lengths; send it once (RFC 9110, 8.6)'),
        ("an escape in a value", get + host + b"X-Note: a\x1bb\r\n\r\n", 400,
         'the header "X-Note" holds a control character (RFC 9110, 5.5)'),
        ("a Content-Length past what serve drains", post_line + host + b"Content-Length: 8388609\r\n\r\n", 413,
         "the request body is larger than the 65536 bytes this server accepts"),
        ("a body one byte over the limit",
         b"POST /api/translate HTTP/1.1\r\n" + host + b"Content-Length: 65537\r\n\r\n" + b"a" * 65537, 413,
         "the request body is larger than the 65536 bytes this server accepts"),
        ("a chunked body one byte over the limit", b"POST /api/translate HTTP/1.1\r\n" + host +
         b"Transfer-Encoding: chunked\r\n\r\n8000\r\n" + b"a" * 32768 + b"\r\n8001\r\n" + b"a" * 32769 +
         b"\r\n0\r\n\r\n",
         413, "the request body is larger than the 65536 bytes this server accepts")]
    for what, data, status, message in cases:
        got, body, _ = exchange(port, data)
        check(got == status and error_of(body) == message,
              "%s: %r %r (expected %d %r)" % (what, got, body[:300], status, message))
    for what, data in [("a tab in a value", get + host + b"X-Note: a\tb\r\n\r\n"),
                       ("a Host with spaces around it", get + b"Host:  127.0.0.1:%d \r\n\r\n" % port),
                       ("localhost in capitals", get + b"Host: LOCALHOST:%d\r\n\r\n" % port),
                       ("its own page as Origin, in capitals",
                        get + host + b"Origin: HTTP://127.0.0.1:%d\r\n\r\n" % port)]:
        got, body, _ = exchange(port, data)
        check(got == 200, "%s is taken: %r %r" % (what, got, body[:200]))
    status, body, _ = post(port, "/api/translate", raw=b"{" + b" " * 65534 + b"}")
    check(status != 413, "a body of exactly 65536 bytes is read: %r %r" % (status, body[:120]))


def origin_cases(port):
    for origin in (TEACHER, "null", "https://teacher.example"):
        status, body, headers = post(port, "/api/contrast", raw=b"{}", headers={"Origin": origin})
        check(status == 400 and headers.get("access-control-allow-origin") == origin and error_of(body),
              "a page --allow-origin names (%s) is answered, and told so: %r %r" % (origin, status, headers))
    got, body, head = exchange(port, b"OPTIONS /api/translate HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: %s\r\n\r\n" %
                               (port, TEACHER.encode()))
    check(got == 405 and error_of(body) == "method OPTIONS is not allowed on /api/translate",
          "an OPTIONS from an allowed page that is no preflight goes to the router (405): %r %r" % (got, body[:200]))
    got, body, _ = exchange(port, b"OPTIONS /api/translate HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                            b"Origin: http://other.example\r\nAccess-Control-Request-Method: POST\r\n\r\n" % port)
    check(got == 403 and "http://other.example" in (error_of(body) or ""),
          "a preflight from a page no --allow-origin names is refused: %r %r" % (got, body[:200]))


# ---- the price of a request (price_request, film_route) under small limits ----
def too_large(port, what, path, fields, pattern):
    """One request refused with 413 and a message matching `pattern` whole."""
    status, body, _ = post(port, path, fields)
    check(status == 413 and re.fullmatch(pattern, error_of(body) or ""), "%s: %r %r" % (what, status, body[:300]))


def price_cases():
    server, port = start("--max-client-work", "1", "--max-text-bytes", "16384")
    try:
        long_text, text = " ".join((words * 10)[:600]), " ".join(words[:40])
        too_large(port, "an answer over --max-answer-mb", "/api/translate", {"text": long_text},
                  r"the answer for this sentence \(600 tokens\) would be about [0-9.]+ MiB, more than the 64 MiB this "
                  r"server sends \(--max-answer-mb\): send a shorter sentence")
        too_large(port, "work over --max-client-work", "/api/translate", {"text": text, "ig_steps": 64, "beam": 16},
                  r"this request \(40 tokens, beam 16, ig_steps 64\) is about \d+ token passes of work, more than the "
                  r"1000000 one client may ask for at once \(--max-client-work\): ask for fewer ig_steps or send a "
                  r"shorter sentence")
        status, body, _ = post(port, "/api/translate", {"text": text})
        check(status == 200, "the same sentence without ig_steps is answered: %r %r" % (status, body[:100]))
        too_large(port, "a film over --max-answer-mb", "/api/film", {"text": text, "target": " ".join(["le"] * 16000)},
                  r"the film of this sentence would be about \d+ MiB, more than the 64 MiB this server sends "
                  r"\(--max-answer-mb\): send a shorter sentence")
    finally:
        check(stop(server) == 0, "serve under --max-client-work 1 stops cleanly")


# ---- the audience of serve --host NAME ----
def page_limits(port, host):
    _, page, _ = exchange(port, b"GET / HTTP/1.1\r\nHost: localhost:%d\r\n\r\n" % port, host=host)
    found = re.search(rb'id="explorer-config">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))["limits"] if found else {}


def host_cases():
    for host, name, wrapped in [("127.0.0.2", "127.0.0.2", "127.0.0.2"), ("::1", "[::1]", "::1"),
                                ("localhost", "localhost", "localhost")]:
        # The same run twice, once with a slash after it, from a folder beside it: shown by its folder's name, the
        # second with " (2)"; and --max-text-bytes 10, under which no answer could reach --max-answer-mb (bound -1).
        server, port = start("--max-text-bytes", "10", host=host, runs=("dot/", "dot"),
                             cwd=os.path.join(runs_dir, "data"))
        try:
            _, runs, _ = exchange(port, b"GET /api/runs HTTP/1.1\r\nHost: localhost:%d\r\n\r\n" % port, host=wrapped)
            check(json.loads(runs or b"{}").get("runs") == ["dot", "dot (2)"],
                  "one run served twice from outside the working folder: %r" % runs)
            bounds = page_limits(port, wrapped).get("tokens")
            check(bounds == [[-1] * 17] * 2, "under --max-text-bytes 10 the page states no token bound: %r" % bounds)
            for shown, status in [("%s:%d" % (name, port), 200), ("localhost:%d" % port, 200),
                                  ("evil.example:%d" % port, 421)]:
                got, body, _ = exchange(port, b"GET /api/runs HTTP/1.1\r\nHost: %s\r\n\r\n" % shown.encode(),
                                        host=wrapped)
                check(got == status,
                      "served on --host %s, the Host %s: %r %r (expected %d)" % (host, shown, got, body[:200], status))
            got, body, _ = exchange(port, b"GET /api/runs HTTP/1.1\r\n\r\n", host=wrapped)
            first = name if host == "127.0.0.2" else "127.0.0.1"   # [::1] and localhost: names every serve answers to
            expected = "no Host header: say which server you ask, Host: %s:%d" % (first, port)
            check(got == 400 and error_of(body) == expected,
                  "no Host names --host %s first: %r %r" % (host, got, body[:200]))
        finally:
            check(stop(server) == 0, "serve on --host %s stops cleanly" % host)
    for host, reason in [("192.0.2.1", "Cannot assign requested address"), ("no-such-host.invalid", "")]:
        port = free_port()
        ended = subprocess.run([attnlab, "serve", "--run", os.path.join(runs_dir, "dot"), "--host", host,
                                "--port", str(port)], capture_output=True, text=True, timeout=60)
        check(ended.returncode == 1 and "cannot listen on %s:%d: %s" % (host, port, reason) in ended.stderr and
              "choose another with --port or --host" in ended.stderr,
              "an address not this machine's ends serve, naming it: %r" % ended.stderr.strip()[-300:])


started = time.monotonic()
server, port = start("--allow-origin", TEACHER, "--allow-origin", "null", "--allow-origin", "HTTPS://Teacher.example")
try:
    contrast_cases(port)
    translate_cases(port)
    film_cases(port)
    route_cases(port)
    head_cases(port)
    origin_cases(port)
finally:
    check(stop(server) == 0, "serve stops cleanly")
price_cases()
host_cases()
print("serve refusals: %.1f s" % (time.monotonic() - started))
sys.exit(checks.finish())
