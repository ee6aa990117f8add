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
    /slow?ms=N[&to=<URL>]                sleeps N ms (at most 30 s), then a small HAL document
                                         (whose "other" link is <URL> when given)
    /link-to?url=<absolute URL>          200 HAL document whose "other" link is that URL
    /etag/<name>[?items=K&pad=B&fail=I]  200 HAL document with an ETag and Cache-Control: no-cache
                                         (every use revalidates), 304 when If-None-Match carries its
                                         ETag; with `items` its "item" rel links K documents
                                         /etag/<name>/<i>?pad=B, each padded with B bytes; `fail`
                                         makes item I answer 500
    /echo[/anything][?ms=N]              any method: 200 (201 with a Location for POST) HAL document
                                         echoing the method, target, Content-Type, body and headers,
                                         after N ms (at most 30 s) when given
    /negotiate                           DIR/forms/negotiated.json as application/prs.hal-forms+json
                                         when Accept asks for it, else without _templates as HAL
    /form-to?url=<URL>                   HAL-FORMS document whose default template (POST, one "note")
                                         targets that URL
    /huge?mb=N                           200 with an N MB body (streamed, valid JSON string)
    /endless                             200 with no Content-Length that streams forever, 64 KiB per ms
    /hang                                reads the request and never answers (up to 60 s)
    /loop                                302 to itself, forever
    /linked-page?count=N[&tag=T][&next=<URL>]
                                         a collection page whose N items are links only (no _embedded):
                                         /linked-item/0?tag=T ... /linked-item/<N-1>?tag=T (N at most 100,000),
                                         with a "next" link to <URL> when given
    /linked-item/<i>                     that item: a HAL document with "n": i
    /link-header?link=<value>[&link=...][&next=<href>][&echo=<text>]
                                         a HAL document sent with one Link header line per `link` query item,
                                         in order; its _links has self (/link-header) and, when given, next;
                                         its "echo" member is `echo`
    /_script?method=M&path=P&status=S[&header=Name:Value...][&body=<JSON>]
                                         scripts the answer of /scripted/... routes (not recorded): from now
                                         on method M at path P (which starts with /scripted/) answers S with
                                         those header lines and that body as application/hal+json
    /scripted/<anything>                 any method: the scripted answer for the method and path (404 when
                                         none); a GET whose If-None-Match is the scripted ETag answers 304
    /_requests                           {"requests": [{"method", "path", "headers"}]}
    /_reset                              clears the request log

Every request except ``/_requests`` and ``/_reset`` is recorded with its lowercased headers
(and its body as text). POST, PUT, PATCH and DELETE are answered by ``/echo`` only (405 elsewhere).
"""

import hashlib
import http
import json
import os
import sys
import threading
import time
import urllib.parse

# The shared module sits next to this script, inside the test target's sources: writing its
# bytecode there would leave a __pycache__ directory that SwiftPM reports as an unhandled file.
sys.dont_write_bytecode = True
import loopback_server  # noqa: E402 - after the setting above

HAL = "application/hal+json"
HAL_FORMS = "application/prs.hal-forms+json"
PROBLEM = "application/problem+json"

_log_lock = threading.Lock()
_log = []
# Scripted answers by (method, path): (status, [(name, value)], body bytes or None).
_scripts_lock = threading.Lock()
_scripts = {}
# Requests seen per `/flaky` id.
_lock = threading.Lock()
_counters = {}


def _record(method, path, headers, body=""):
    entry = {"method": method, "path": path, "headers": headers, "body": body}
    with _log_lock:
        _log.append(entry)


def _snapshot():
    with _log_lock:
        return list(_log)


def _sleep(query):
    """Sleeps the `ms` query item's milliseconds (at most 30 s); returns them."""
    try:
        ms = int(query.get("ms", ["0"])[0])
    except ValueError:
        ms = 0
    time.sleep(min(max(ms, 0), 30_000) / 1000.0)
    return ms


def _clear():
    with _log_lock:
        _log.clear()


def _spring_orders(host, path, query, honour_page, total=95):
    """A Spring Data REST page of `total` orders (ids 1...total): `page` metadata and
    first/prev/next/last links carrying `page` and `size` query items. With `honour_page`
    false the server ignores `page` and always answers the first page, as a server
    without paging support would."""
    def number(name, default):
        try:
            return max(0, int(query.get(name, [str(default)])[0]))
        except ValueError:
            return default
    size = number("size", 20) or 20
    page = number("page", 0) if honour_page else 0
    pages = (total + size - 1) // size

    def link(n):
        return {"href": "http://%s%s?page=%d&size=%d" % (host, path, n, size)}
    links = {"self": link(page), "first": link(0), "last": link(max(pages - 1, 0))}
    if page > 0:
        links["prev"] = link(page - 1)
    if page + 1 < pages:
        links["next"] = link(page + 1)
    ids = range(page * size + 1, min((page + 1) * size, total) + 1)
    orders = [{"id": n, "_links": {"self": {"href": "/orders/%d" % n}}} for n in ids]
    return {
        "_links": links,
        "_embedded": {"orders": orders},
        "page": {"size": size, "totalElements": total, "totalPages": pages, "number": page},
    }


def _linked_page(query):
    """A collection page made of links: `count` items in `_links.item`, none embedded, each
    carrying the `tag` query item so a test finds its own requests in the shared log; a
    `next` link when the query names one."""
    try:
        count = min(max(int(query.get("count", ["0"])[0]), 0), 100_000)
    except ValueError:
        count = 0
    tag = urllib.parse.quote(query.get("tag", [""])[0], safe="")
    items = [{"href": "/linked-item/%d?tag=%s" % (n, tag)} for n in range(count)]
    links = {"self": {"href": "/linked-page?count=%d&tag=%s" % (count, tag)}, "item": items}
    if query.get("next"):
        links["next"] = {"href": query["next"][0]}
    return {"_links": links}


class Handler(loopback_server.QuietHandler):
    # Every response carries Content-Length.
    server_version = "HalleyTestServer/1"
    root = "."

    def _dispatch_with_body(self):
        self._dispatch(send_body=True)

    def do_HEAD(self):
        self._dispatch(send_body=False)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _dispatch_with_body

    def _read_body(self):
        try:
            length = int(self.headers.get("Content-Length", "0") or "0")
        except ValueError:
            length = 0
        return self.rfile.read(length) if length > 0 else b""

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

        body = self._read_body()
        if path == "/_requests":
            return self._json(200, "application/json", {"requests": _snapshot()})
        if path == "/_reset":
            _clear()
            return self._json(200, "application/json", {"reset": True})
        if path == "/_script":
            return self._script(query)
        text = body.decode("utf-8", "replace")
        _record(self.command, self.path, headers, text)

        if path == "/echo" or path.startswith("/echo/"):
            _sleep(query)
            echo = {"_links": {"self": {"href": path}}, "method": self.command, "target": self.path,
                    "contentType": headers.get("content-type"), "body": text, "headers": headers}
            if self.command == "POST":
                return self._json(201, HAL, echo, {"Location": "/echo/created"})
            return self._json(200, HAL, echo)
        if path.startswith("/scripted/"):
            return self._scripted(path, headers)
        if self.command not in ("GET", "HEAD"):
            return self._json(405, PROBLEM, {"title": "Method Not Allowed", "status": 405,
                                             "detail": "only /echo takes " + self.command}, {"Allow": "GET, HEAD"})
        if path == "/negotiate":
            with open(os.path.join(self.root, "forms", "negotiated.json"), "rb") as file:
                document = json.loads(file.read().decode("utf-8"))
            if HAL_FORMS in headers.get("accept", ""):
                return self._json(200, HAL_FORMS, document)
            document.pop("_templates", None)
            return self._json(200, HAL, document)
        if path == "/form-to":
            target = query.get("url", [""])[0]
            return self._json(200, HAL_FORMS, {
                "_links": {"self": {"href": "/form-to"}},
                "_templates": {"default": {"method": "post", "target": target,
                                           "properties": [{"name": "note", "required": True}]}}})

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
        if path == "/flaky":
            # The first `failures` requests for `id` answer `status` (503 by default); later
            # ones answer 200 with the Authorization they carried.
            key = query.get("id", [""])[0]
            try:
                failures = int(query.get("failures", ["1"])[0])
                status = int(query.get("status", ["503"])[0])
            except ValueError:
                failures, status = 1, 503
            with _lock:
                seen = _counters.get(key, 0)
                _counters[key] = seen + 1
            if seen < failures:
                return self._json(status, PROBLEM, {"title": "Try again", "status": status}, {"Retry-After": "0"})
            return self._json(200, HAL, {"_links": {"self": {"href": "/flaky"}},
                                         "authorization": headers.get("authorization")})
        if path == "/protected":
            # 200 only for `Authorization: Bearer <token>`; 401 otherwise.
            token = query.get("token", [""])[0]
            if headers.get("authorization") != "Bearer " + token:
                return self._json(401, PROBLEM, {"title": "Unauthorized", "status": 401})
            return self._json(200, HAL, {"_links": {"self": {"href": "/protected"}}, "ok": True})
        if path == "/cacheable":
            # Fresh for a minute; `vary` (when given) becomes the Vary header. The body tells
            # whose request produced it, so a test sees which stored answer it was served.
            extra = {"Cache-Control": "max-age=60"}
            if "vary" in query:
                extra["Vary"] = query["vary"][0]
            body = {"_links": {"self": {"href": path}}, "authorization": headers.get("authorization"),
                    "language": headers.get("accept-language")}
            return self._send(200, HAL, json.dumps(body).encode("utf-8"), extra)
        if path.startswith("/etag/"):
            return self._etag(path, query, headers)
        if path == "/slow":
            ms = _sleep(query)
            links = {"self": {"href": "/slow"}}
            if "to" in query:
                links["other"] = {"href": query["to"][0]}
            return self._json(200, HAL, {"_links": links, "slept": ms})
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
        if path == "/link-header":
            links = {"self": {"href": "/link-header"}}
            if "next" in query:
                links["next"] = {"href": query["next"][0]}
            body = (json.dumps({"_links": links, "echo": query.get("echo", [""])[0]}) + "\n").encode("utf-8")
            return self._send(200, HAL, body, [("Link", value) for value in query.get("link", [])])
        if path == "/linked-page":
            return self._json(200, HAL, _linked_page(query))
        if path.startswith("/linked-item/"):
            try:
                n = int(path[len("/linked-item/"):])
            except ValueError:
                return self._not_found(path)
            return self._json(200, HAL, {"_links": {"self": {"href": path}}, "n": n})
        if path in ("/orders", "/orders-ignoring-page"):
            return self._json(200, HAL, _spring_orders(self.headers.get("Host", "127.0.0.1"), path, query,
                                                          honour_page=path == "/orders"))
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

    # MARK: Revalidation

    def _etag(self, path, query, headers):
        def number(name):
            try:
                return max(0, int(query.get(name, ["0"])[0]))
            except ValueError:
                return 0
        links = {"self": {"href": path}}
        items, pad, fail = number("items"), number("pad"), query.get("fail", [None])[0]
        if items:
            links["item"] = [{"href": "%s/%d?pad=%d%s" % (path, i, pad, "&fail=%s" % fail if fail else "")}
                             for i in range(1, items + 1)]
        if fail is not None and path.rsplit("/", 1)[-1] == fail:
            return self._json(500, PROBLEM, {"title": "Internal Server Error", "status": 500})
        body = (json.dumps({"_links": links, "name": path, "padding": "x" * pad}, sort_keys=True) + "\n").encode()
        tag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
        extra = {"ETag": tag, "Cache-Control": "no-cache"}
        if headers.get("if-none-match") == tag:
            try:
                self.send_response(304)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
            return None
        return self._send(200, HAL, body, extra)

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

    def _script(self, query):
        try:
            method = query["method"][0]
            target = query["path"][0]
            status = int(query["status"][0])
        except (KeyError, ValueError):
            return self._json(400, PROBLEM, {"title": "method, path and status are required", "status": 400})
        lines = []
        for line in query.get("header", []):
            name, _, value = line.partition(":")
            lines.append((name.strip(), value.strip()))
        body = query.get("body", [None])[0]
        with _scripts_lock:
            _scripts[(method, target)] = (status, lines, body.encode("utf-8") if body is not None else None)
        return self._json(200, "application/json", {"scripted": True})

    def _scripted(self, path, headers):
        with _scripts_lock:
            answer = _scripts.get((self.command, path))
        if answer is None:
            return self._not_found(path)
        status, lines, body = answer
        etag = next((value for name, value in lines if name.lower() == "etag"), None)
        if self.command == "GET" and etag is not None and headers.get("if-none-match") == etag:
            kept = [(name, value) for name, value in lines if name.lower() in ("etag", "cache-control")]
            return self._send(304, HAL, b"", kept)
        return self._send(status, HAL, body or b"", lines)

    def _json(self, status, content_type, value, extra_headers=None):
        body = (json.dumps(value, indent=2, sort_keys=True) + "\n").encode("utf-8")
        self._send(status, content_type, body, extra_headers)

    def _send(self, status, content_type, body, extra_headers=None):
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            # A list of pairs repeats a name, as several Link lines do; a dict cannot.
            pairs = extra_headers if isinstance(extra_headers, list) else (extra_headers or {}).items()
            for name, value in pairs:
                self.send_header(name, value)
            self.end_headers()
            if self._send_body:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            # The client went away (a cancelled request); nothing to answer.
            self.close_connection = True


def main():
    parser = loopback_server.argument_parser(__doc__)
    parser.add_argument("--root", required=True, help="directory of the .json documents")
    args = parser.parse_args()
    if not os.path.isdir(args.root):
        parser.error("--root %r is not a directory" % args.root)
    Handler.root = os.path.abspath(args.root)
    loopback_server.serve(parser, args, Handler)


if __name__ == "__main__":
    main()
