#!/usr/bin/env python3
"""A small HAL server for Halley's integration tests (Python 3 standard library only).

    python3 hal_test_server.py --root DIR [--host 127.0.0.1] [--port 0]

Binds a loopback address only, prints exactly one line ``PORT <n>`` to stdout, then serves
until its stdin reaches end of file (the test process keeps the other end of the pipe open
and the kernel closes it when that process exits, however it exits).

Documents: ``/a/b`` serves ``DIR/a/b.json`` (``/`` serves ``DIR/index.json``) as
``application/hal+json``. The query string is ignored unless ``DIR/a/b@<raw query>.json``
exists.

Special routes:
    /redirect?to=<path or absolute URL>  302 with that Location, verbatim
    /status/<code>                       that status, application/problem+json body
    /not-json                            200 text/html
    /echo-headers                        200 HAL document listing the request headers
    /slow?ms=N                           sleeps N ms (at most 30 s), then a small HAL document
    /link-to?url=<absolute URL>          200 HAL document whose "other" link is that URL
    /huge?mb=N                           200 with an N MB body (streamed, valid JSON string)
    /endless                             200 with no Content-Length that streams forever, 64 KiB per ms
    /hang                                reads the request and never answers (up to 60 s)
    /loop                                302 to itself, forever
    /_requests                           {"requests": [{"method", "path", "headers"}]}
    /_reset                              clears the request log

Every request except ``/_requests`` and ``/_reset`` is recorded with its lowercased headers.
"""

import argparse
import http.server
import json
import os
import sys
import threading
import time
import urllib.parse

HAL = "application/hal+json"
PROBLEM = "application/problem+json"

_log_lock = threading.Lock()
_log = []


def _record(method, path, headers):
    entry = {"method": method, "path": path, "headers": headers}
    with _log_lock:
        _log.append(entry)


def _snapshot():
    with _log_lock:
        return list(_log)


def _clear():
    with _log_lock:
        _log.clear()


class Handler(http.server.BaseHTTPRequestHandler):
    # Keep-alive, like a real API server; every response carries Content-Length.
    protocol_version = "HTTP/1.1"
    server_version = "HalleyTestServer/1"
    # Headers and body go out in separate writes; with Nagle's algorithm the body would wait
    # for the client's delayed ACK of the headers (40 ms per response on Linux).
    disable_nagle_algorithm = True
    root = "."

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass

    def do_GET(self):
        self._dispatch(send_body=True)

    def do_HEAD(self):
        self._dispatch(send_body=False)

    # MARK: Routing

    def _dispatch(self, send_body):
        self._send_body = send_body
        parsed = urllib.parse.urlsplit(self.path)
        path = parsed.path or "/"
        raw_query = parsed.query
        query = urllib.parse.parse_qs(raw_query, keep_blank_values=True)
        headers = {}
        for name, value in self.headers.items():
            name = name.lower()
            headers[name] = headers[name] + ", " + value if name in headers else value

        if path == "/_requests":
            return self._json(200, "application/json", {"requests": _snapshot()})
        if path == "/_reset":
            _clear()
            return self._json(200, "application/json", {"reset": True})
        _record(self.command, self.path, headers)

        if path == "/redirect":
            target = query.get("to", ["/"])[0]
            return self._send(302, "text/plain", b"redirecting\n", {"Location": target})
        if path.startswith("/status/"):
            try:
                code = int(path[len("/status/"):])
            except ValueError:
                code = 400
            if not 200 <= code <= 599:
                code = 400
            try:
                title = http.HTTPStatus(code).phrase
            except ValueError:
                title = "Status %d" % code
            return self._json(code, PROBLEM, {"title": title, "status": code, "detail": "requested " + path})
        if path == "/not-json":
            body = b"<html><head><title>Not JSON</title></head><body>Hello</body></html>\n"
            return self._send(200, "text/html; charset=utf-8", body)
        if path == "/echo-headers":
            return self._json(200, HAL, {"_links": {"self": {"href": "/echo-headers"}}, "headers": headers})
        if path == "/slow":
            try:
                ms = int(query.get("ms", ["0"])[0])
            except ValueError:
                ms = 0
            time.sleep(min(max(ms, 0), 30_000) / 1000.0)
            return self._json(200, HAL, {"_links": {"self": {"href": "/slow"}}, "slept": ms})
        if path == "/huge":
            try:
                megabytes = int(query.get("mb", ["1"])[0])
            except ValueError:
                megabytes = 1
            return self._stream(megabytes * 1024 * 1024)
        if path == "/endless":
            return self._stream(None)
        if path == "/hang":
            time.sleep(60)
            self.close_connection = True
            return None
        if path == "/loop":
            return self._send(302, "text/plain", b"again\n", {"Location": "/loop"})
        if path == "/link-to":
            target = query.get("url", [""])[0]
            return self._json(200, HAL, {"_links": {"self": {"href": "/link-to"}, "other": {"href": target}}})
        return self._file(path, raw_query)

    # MARK: Files

    def _file(self, path, raw_query):
        relative = urllib.parse.unquote(path).strip("/") or "index"
        parts = relative.split("/")
        if any(part in ("", ".", "..") for part in parts):
            return self._not_found(path)
        base = os.path.join(self.root, *parts)
        candidates = []
        if raw_query:
            candidates.append(base + "@" + raw_query + ".json")
        candidates.append(base + ".json")
        for candidate in candidates:
            real = os.path.realpath(candidate)
            if real.startswith(os.path.realpath(self.root) + os.sep) and os.path.isfile(real):
                with open(real, "rb") as file:
                    return self._send(200, HAL, file.read())
        return self._not_found(path)

    def _not_found(self, path):
        return self._json(404, PROBLEM, {"title": "Not Found", "status": 404, "detail": "no document at " + path})

    # MARK: Responses

    def _stream(self, size):
        """A JSON string body of `size` bytes (or endless when None), written in chunks."""
        chunk = b"x" * 65536
        try:
            self.send_response(200)
            self.send_header("Content-Type", HAL)
            if size is None:
                self.send_header("Connection", "close")
            else:
                self.send_header("Content-Length", str(size + 2))
            self.end_headers()
            self.close_connection = True
            self.wfile.write(b'"')
            written = 0
            while size is None or written < size:
                part = chunk if size is None else chunk[: min(len(chunk), size - written)]
                self.wfile.write(part)
                written += len(part)
                if size is None:
                    # Paced like a fast network: at loopback speed an endless body floods the
                    # client's URLSession work queue, which every session in the process shares.
                    time.sleep(0.001)
            self.wfile.write(b'"')
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    def _json(self, status, content_type, value):
        body = (json.dumps(value, indent=2, sort_keys=True) + "\n").encode("utf-8")
        self._send(status, content_type, body)

    def _send(self, status, content_type, body, extra_headers=None):
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (extra_headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            if self._send_body:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            # The client went away (a cancelled request); nothing to answer.
            self.close_connection = True


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # The default backlog of 5 overflows when tests connect in parallel; the kernel then
    # drops SYNs and clients retry after a second.
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # Quiet: clients that disconnect mid-response are expected (cancellation tests).
        pass


def _exit_on_stdin_eof():
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    finally:
        os._exit(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="directory of the .json documents")
    parser.add_argument("--host", default="127.0.0.1", help="a loopback IPv4 address (127.x.y.z)")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args()

    if not args.host.startswith("127."):
        parser.error("refusing to bind %r: only loopback addresses 127.x.y.z are allowed" % args.host)
    if not os.path.isdir(args.root):
        parser.error("--root %r is not a directory" % args.root)
    Handler.root = os.path.abspath(args.root)

    server = Server((args.host, args.port), Handler)
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    threading.Thread(target=_exit_on_stdin_eof, name="stdin-watch", daemon=True).start()
    # Nobody reads our output from here on: make sure a stray write can never block.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.dup2(devnull, sys.stderr.fileno())

    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
