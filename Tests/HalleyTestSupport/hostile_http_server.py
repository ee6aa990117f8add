#!/usr/bin/env python3
"""A hostile HTTP server for Halley's transport tests (Python 3 standard library only).

    python3 hostile_http_server.py [--host 127.0.0.1] [--port 0]

Binds a loopback address only, prints exactly one line ``PORT <n>`` to stdout, then serves
until its stdin reaches end of file. Unlike hal_test_server.py it never paces its output:
endless bodies go out as fast as the loopback interface takes them, which is what a client
must survive.

Hostile routes:
    /content-length?declared=N&actual=M  Content-Length N, then M bytes (M < N: the server
                                         closes mid-body; M > N: extra bytes follow on a
                                         keep-alive connection). Bodies are a JSON string.
    /huge-declared                       Content-Length: 1 TiB, then bytes until the client goes
    /endless-chunked                     chunked, 256 KiB chunks, never ends
    /gzip-bomb                           Content-Encoding: gzip, about 1 MiB on the wire that
                                         inflates to 1 GiB of spaces inside a JSON string
    /basic-401                           401 with WWW-Authenticate: Basic realm="halley"
    /many-headers?n=N&pad=P              200 with N extra header fields, each value P bytes longer
    /long-header?bytes=N                 200 with one header field whose line is N bytes
    /close-mid-chunk                     chunked, one half-sent chunk, then the connection closes
    /reset                               a TCP reset instead of any response
    /header-shapes                       repeated names in other cases, folded lines, Latin-1 and
                                         UTF-8 values, padding, 30 more fields and late repeats
Helper routes:
    /small                               a small HAL document
    /set-cookie?value=V                  200 with Set-Cookie: V, and the request's Cookie echoed
    /echo                                any method: a HAL document with the method, lowercased
                                         headers and body the server received (a request body
                                         by Content-Length or chunked)
    /redirect?status=S&to=URL            any method: status S (default 302) to URL, verbatim
    /loop                                302 to itself, forever
    /slow?ms=N                           a small HAL document after N ms (at most 30 s)
    /gzip-small                          a small HAL document, gzip-encoded
"""

import gzip
import json
import socket
import struct
import sys
import threading
import time
import urllib.parse
import zlib

# The shared module sits next to this script, inside the test target's sources: writing its
# bytecode there would leave a __pycache__ directory that SwiftPM reports as an unhandled file.
sys.dont_write_bytecode = True
import loopback_server  # noqa: E402 - after the setting above

HAL = "application/hal+json"
CHUNK = b" " * (256 * 1024)
_gzip_lock = threading.Lock()
_gzip_body = None


def _gzip_bomb():
    """1 GiB of spaces inside a JSON string, gzip-compressed once (about 1 MiB), then cached.

    Built from one compressed 1 MiB segment repeated: after a full flush a deflate block
    does not refer to earlier data, so identical input compresses to identical bytes and the
    copies concatenate into a valid stream. The trailer's CRC-32 and size cover all of it.
    """
    global _gzip_body
    with _gzip_lock:
        if _gzip_body is not None:
            return _gzip_body
        segment_input = b" " * (1024 * 1024)
        copies = 1024
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        opening = compressor.compress(b'"') + compressor.flush(zlib.Z_FULL_FLUSH)
        segment = compressor.compress(segment_input) + compressor.flush(zlib.Z_FULL_FLUSH)
        closing = compressor.compress(b'"') + compressor.flush(zlib.Z_FINISH)
        crc = zlib.crc32(b'"')
        for _ in range(copies):
            crc = zlib.crc32(segment_input, crc)
        crc = zlib.crc32(b'"', crc)
        size = (copies * len(segment_input) + 2) & 0xFFFFFFFF
        header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
        trailer = crc.to_bytes(4, "little") + size.to_bytes(4, "little")
        _gzip_body = header + opening + segment * copies + closing + trailer
        return _gzip_body


class Handler(loopback_server.QuietHandler):
    server_version = "HalleyHostileServer/1"

    def _dispatch(self):
        parsed = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = self._read_chunked()
        else:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length > 0 else b""

        def number(name, default):
            try:
                return int(query.get(name, [str(default)])[0])
            except ValueError:
                return default

        try:
            route = parsed.path
            if route == "/small":
                return self._send(200, {"_links": {"self": {"href": "/small"}}, "small": True})
            if route == "/echo":
                headers = {}
                for name, value in self.headers.items():
                    name = name.lower()
                    headers[name] = headers[name] + ", " + value if name in headers else value
                return self._send(200, {"_links": {"self": {"href": "/echo"}}, "method": self.command,
                                        "path": self.path, "headers": headers,
                                        "body": body.decode("utf-8", "replace")})
            if route == "/redirect":
                status = number("status", 302)
                target = query.get("to", ["/small"])[0]
                return self._send(status, {"redirect": target}, {"Location": target})
            if route == "/loop":
                return self._send(302, {"again": True}, {"Location": "/loop"})
            if route == "/slow":
                time.sleep(min(max(number("ms", 0), 0), 30_000) / 1000.0)
                return self._send(200, {"_links": {"self": {"href": "/slow"}}, "slow": True})
            if route == "/gzip-small":
                payload = gzip.compress(json.dumps({"_links": {"self": {"href": "/gzip-small"}},
                                                    "inflated": "x" * 10000}).encode())
                self._head(200, {"Content-Type": HAL, "Content-Encoding": "gzip",
                                 "Content-Length": str(len(payload))})
                self.wfile.write(payload)
                return None
            if route == "/set-cookie":
                value = query.get("value", ["session=1"])[0]
                return self._send(200, {"cookie": self.headers.get("Cookie")}, {"Set-Cookie": value})
            if route == "/basic-401":
                problem = {"title": "Unauthorized", "status": 401}
                return self._send(401, problem, {"WWW-Authenticate": 'Basic realm="halley"'},
                                  content_type="application/problem+json")
            if route == "/content-length":
                return self._content_length(number("declared", 100), number("actual", 50))
            if route == "/huge-declared":
                return self._stream({"Content-Length": str(1 << 40)}, chunked=False)
            if route == "/endless-chunked":
                return self._stream({"Transfer-Encoding": "chunked"}, chunked=True)
            if route == "/gzip-bomb":
                payload = _gzip_bomb()
                self._head(200, {"Content-Type": HAL, "Content-Encoding": "gzip",
                                 "Content-Length": str(len(payload))})
                self.wfile.write(payload)
                return None
            if route == "/many-headers":
                extra = {}
                self.send_response(200)
                value = "v" * (1 + max(0, number("pad", 0)))
                for index in range(number("n", 30000)):
                    self.send_header("X-Field-%d" % index, value)
                return self._finish_small(extra)
            if route == "/header-shapes":
                # Written raw: repeated names in other cases, obsolete folding, a Latin-1 and
                # a UTF-8 value, padding, and more fields than a client compares one by one.
                lines = [b"HTTP/1.1 200 OK", b"X-Repeat: one", b"x-REPEAT:  two ", b"X-Folded: first",
                         b"   second", b"\tthird", b"X-Latin: caf\xe9", b"X-Utf8: caf\xc3\xa9",
                         b"X-Spaces: \t padded \t"]
                lines += [b"X-Field-%d: %d" % (index, index) for index in range(30)]
                # A folded line continues the line above it, a repeat included.
                lines += [b"x-field-3: again", b"X-FIELD-27: again", b"  continued", b"X-Repeat: three"]
                body = b'{"_links": {"self": {"href": "/header-shapes"}}}\n'
                lines += [b"Content-Type: " + HAL.encode(), b"Content-Length: %d" % len(body)]
                self.wfile.write(b"\r\n".join(lines) + b"\r\n\r\n" + body)
                self.close_connection = True
                return None
            if route == "/interim-and-trailers":
                # Written raw: an interim 103 with fields of its own, then the final response,
                # chunked, with a trailer field after the body.
                interim = b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\nX-Interim: 1\r\n\r\n"
                body = b'{"_links": {"self": {"href": "/interim-and-trailers"}}}\n'
                final = (b"HTTP/1.1 200 OK\r\nContent-Type: " + HAL.encode() + b"\r\nTransfer-Encoding: chunked\r\n"
                         b"Trailer: X-Trailer\r\nX-Final: kept\r\n\r\n")
                chunks = b"%x\r\n" % len(body) + body + b"\r\n0\r\nX-Trailer: late\r\n\r\n"
                self.wfile.write(interim + final + chunks)
                self.close_connection = True
                return None
            if route == "/long-header":
                self.send_response(200)
                self.send_header("X-Long", "x" * max(0, number("bytes", 1 << 20) - len("X-Long: \r\n")))
                return self._finish_small({})
            if route == "/close-mid-chunk":
                self._head(200, {"Content-Type": HAL, "Transfer-Encoding": "chunked"})
                self.wfile.write(b"1000\r\n" + b'"' + b"x" * 100)
                self.close_connection = True
                return None
            if route == "/reset":
                return self._reset()
            return self._send(404, {"title": "Not Found", "status": 404}, content_type="application/problem+json")
        except (BrokenPipeError, ConnectionResetError, OSError):
            # The client gave up, as it should: nothing left to answer.
            self.close_connection = True
            return None

    # Every method routes alike; PROPFIND is an extension method: requesters must send any
    # token as given.
    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_PROPFIND = _dispatch

    # MARK: Responses

    def _reset(self):
        """Ends the connection with a TCP reset: no byte of a response, no orderly close."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # The read buffer holds a reference to the socket: the descriptor closes (and the
        # reset goes out) only once both are closed.
        self.rfile.close()
        self.connection.close()

    def _read_chunked(self, limit=1 << 20):
        """A chunked request body (the redirect tests send one), at most `limit` bytes kept."""
        body = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline().strip():  # trailer fields, up to the empty line
                    pass
                return body
            chunk = self.rfile.read(size)
            self.rfile.readline()  # the CRLF after the chunk
            if len(body) < limit:
                body += chunk[: limit - len(body)]

    def _head(self, status, headers):
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()

    def _send(self, status, value, extra=None, content_type=HAL):
        body = (json.dumps(value) + "\n").encode("utf-8")
        headers = {"Content-Type": content_type, "Content-Length": str(len(body))}
        headers.update(extra or {})
        self._head(status, headers)
        if self.command != "HEAD":
            self.wfile.write(body)

    def _finish_small(self, extra):
        body = b'{"_links": {"self": {"href": "/small"}}}\n'
        self.send_header("Content-Type", HAL)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _content_length(self, declared, actual):
        self._head(200, {"Content-Type": HAL, "Content-Length": str(declared)})
        body = b'"' + b"x" * max(0, actual - 2) + b'"'
        self.wfile.write(body[:actual])
        if actual < declared:
            self.close_connection = True

    def _stream(self, headers, chunked):
        """A JSON string that never ends, written as fast as the socket takes it."""
        headers = dict(headers)
        headers["Content-Type"] = HAL
        self._head(200, headers)
        self.close_connection = True
        if chunked:
            frame = b"%x\r\n" % len(CHUNK) + CHUNK + b"\r\n"
            self.wfile.write(b'1\r\n"\r\n')
            while True:
                self.wfile.write(frame)
        else:
            self.wfile.write(b'"')
            while True:
                self.wfile.write(CHUNK)


def main():
    parser = loopback_server.argument_parser(__doc__)
    loopback_server.serve(parser, parser.parse_args(), Handler)


if __name__ == "__main__":
    main()
