"""What Halley's test servers share: a quiet keep-alive handler, a threaded server, and the
start-up and shutdown rules (Python 3 standard library only).

Every server binds a loopback address only, prints exactly one line ``PORT <n>`` to stdout,
then serves until its stdin reaches end of file (the test process keeps the other end of the
pipe open and the kernel closes it when that process exits, however it exits), or until its
optional lifetime ends or its parent goes away.
"""

import argparse
import http.server
import os
import sys
import threading
import time


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """Keep-alive like a real API server, every response written at once, nothing logged."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle's algorithm the body would wait
    # for the client's delayed ACK of the headers (40 ms per response on Linux).
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # The default backlog of 5 overflows when tests connect in parallel; the kernel then
    # drops SYNs and clients retry after a second.
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # Quiet: clients that hang up mid-response (cancellation, hostile and chaos tests)
        # are expected.
        pass


def argument_parser(description):
    """A parser with ``--host`` and ``--port``; the caller adds its own options."""
    parser = argparse.ArgumentParser(description=description.strip().splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="a loopback IPv4 address (127.x.y.z)")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    return parser


def serve(parser, args, handler, queue_size=128, lifetime=None):
    """Binds ``args.host``/``args.port`` (loopback only), prints the port, and serves until
    stdin closes, or ``lifetime`` seconds pass, or the parent process goes away."""
    if not args.host.startswith("127."):
        parser.error("refusing to bind %r: only loopback addresses 127.x.y.z are allowed" % args.host)

    class Bound(Server):
        request_queue_size = queue_size

    server = Bound((args.host, args.port), handler)
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    threading.Thread(target=_exit_on_stdin_eof, name="stdin-watch", daemon=True).start()
    if lifetime is not None:
        threading.Thread(target=_exit_when_orphaned_or_old, args=(lifetime,), name="lifetime",
                         daemon=True).start()
    # Nobody reads our output from here on: make sure a stray write can never block.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.dup2(devnull, sys.stderr.fileno())
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    os._exit(0)


def _exit_on_stdin_eof():
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    finally:
        os._exit(0)


def _exit_when_orphaned_or_old(lifetime):
    parent = os.getppid()
    deadline = time.monotonic() + lifetime
    while time.monotonic() < deadline and os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
