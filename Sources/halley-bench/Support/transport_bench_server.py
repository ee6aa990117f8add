#!/usr/bin/env python3
"""A fast loopback HTTP/1.1 server for halley-bench's transport scenario (Python 3 stdlib).

    python3 transport_bench_server.py [--host 127.0.0.1] [--port 0]

Binds a loopback address only, prints one line ``PORT <n>``, then serves until its stdin
reaches end of file. One asyncio loop, keep-alive connections, every response with a
Content-Length: the server must cost far less per request than the clients it measures.

Routes (``ms`` is the latency added before answering, default 0):
    /tree/<id>?fan=F&depth=D&ms=L  HAL document linking F children down to depth D
    /wide?n=N&ms=L                 HAL document linking N items /item/<i>?ms=L
    /item/<i>?ms=L                 a small HAL document
"""

import argparse
import asyncio
import json
import os
import sys
import urllib.parse

HEAD = (
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: application/hal+json\r\n"
    "Content-Length: %d\r\n"
    "\r\n"
)


def _document(path, query):
    def number(name, default):
        try:
            return int(query.get(name, [str(default)])[0])
        except ValueError:
            return default

    ms = number("ms", 0)
    if path.startswith("/tree/"):
        node = path[len("/tree/"):]
        fan, depth = number("fan", 3), number("depth", 3)
        level = node.count(".")
        links = {"self": {"href": path}}
        if level < depth:
            suffix = "?fan=%d&depth=%d&ms=%d" % (fan, depth, ms)
            links["child"] = [{"href": "/tree/%s.%d%s" % (node, i, suffix)} for i in range(fan)]
        body = {"_links": links, "id": node}
    elif path == "/wide":
        count = number("n", 100)
        items = [{"href": "/item/%d?ms=%d" % (i, ms)} for i in range(count)]
        body = {"_links": {"self": {"href": path}, "items": items}, "count": count}
    elif path.startswith("/item/"):
        body = {"_links": {"self": {"href": path}}, "id": path[len("/item/"):]}
    else:
        return ms, None
    return ms, json.dumps(body, separators=(",", ":")).encode()


class Connection(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""
        self.queue = asyncio.Queue()
        self.writer = asyncio.ensure_future(self._answer())

    def data_received(self, data):
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.buffer = self.buffer[:end], self.buffer[end + 4:]
            target = head.split(b"\r\n", 1)[0].split(b" ")
            self.queue.put_nowait(target[1].decode("latin-1") if len(target) > 1 else "/")

    def connection_lost(self, exc):
        self.writer.cancel()

    async def _answer(self):
        # One request at a time per connection, in order, as HTTP/1.1 requires.
        while True:
            target = await self.queue.get()
            parts = urllib.parse.urlsplit(target)
            ms, body = _document(parts.path, urllib.parse.parse_qs(parts.query))
            if ms > 0:
                await asyncio.sleep(ms / 1000.0)
            if body is None:
                body = b'{"error":"not found"}'
                head = "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                self.transport.write((head % len(body)).encode() + body)
            else:
                self.transport.write((HEAD % len(body)).encode() + body)


async def _serve(host, port):
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Connection, host, port, backlog=1024)
    sys.stdout.write("PORT %d\n" % server.sockets[0].getsockname()[1])
    sys.stdout.flush()
    done = loop.create_future()
    loop.add_reader(sys.stdin.fileno(), lambda: _on_stdin(done))
    await done
    os._exit(0)


def _on_stdin(done):
    if not os.read(sys.stdin.fileno(), 4096) and not done.done():
        done.set_result(None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if not args.host.startswith("127."):
        parser.error("only loopback addresses 127.x.y.z are allowed")
    asyncio.run(_serve(args.host, args.port))


if __name__ == "__main__":
    main()
