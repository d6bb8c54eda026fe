#!/usr/bin/env python3
"""serve_isolated.py — serve a folder over HTTP as a cross-origin-isolated site, for the live explorer's threads.

A browser gives a page SharedArrayBuffer — and with it WebAssembly threads, the threaded engine of the browser build
(cmake/browser.cmake, preset wasm-threads) — only when the page is cross-origin isolated: served with
    Cross-Origin-Opener-Policy: same-origin
    Cross-Origin-Embedder-Policy: require-corp
A page opened from disk never is (it then trains on one thread and says so). `attnlab serve` sends these headers
itself; this script is for the page tools/web.sh writes (tools/web.sh --serve runs it), and for the browser tests.

    tools/serve_isolated.py DIR [--port 8000] [--bind 127.0.0.1]
prints "serving DIR at http://HOST:PORT/" once it listens, then serves until stopped (Ctrl-C).
"""
import argparse
import functools
import http.server
import os
import sys


class IsolatedHandler(http.server.SimpleHTTPRequestHandler):
    """Python's static file handler, plus the two isolation headers (and Cross-Origin-Resource-Policy) on every
    answer, and .wasm files as application/wasm (what WebAssembly.instantiateStreaming asks)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".js": "text/javascript"}

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format, *args):  # quiet: one line per file fetched is noise here
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--port", type=int, default=8000, help="0: any free port (printed)")
    parser.add_argument("--bind", default="127.0.0.1")
    args = parser.parse_args()
    if not os.path.isdir(args.folder):
        sys.exit(f"serve_isolated.py: {args.folder} is not a folder")
    handler = functools.partial(IsolatedHandler, directory=args.folder)
    try:
        server = http.server.ThreadingHTTPServer((args.bind, args.port), handler)
    except OSError as error:
        sys.exit(f"serve_isolated.py: cannot listen on {args.bind}:{args.port}: {error.strerror}")
    host, port = server.server_address[:2]
    print(f"serving {args.folder} at http://{host}:{port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
