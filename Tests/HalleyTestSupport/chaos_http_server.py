#!/usr/bin/env python3
"""A chaos HTTP server for Halley's reliability tests (Python 3 standard library only).

    python3 chaos_http_server.py [--host 127.0.0.1] [--port 0] [--lifetime SECONDS]

Binds a loopback address only, prints exactly one line ``PORT <n>`` to stdout, then serves
until its stdin reaches end of file (the test process holds the other end), its parent
process goes away, or ``--lifetime`` seconds have passed (15 minutes by default), whichever
comes first.

It serves a contacts graph under ``/r/<run>/<profile>/<seed>/<resource>`` and decides, for
every request, what to do with it from (profile, seed, resource, attempt) alone, where
``attempt`` counts the requests for that exact target (1 for the first). The same seed
therefore always injects the same faults, whoever asks; ``run`` only keeps concurrent tests
apart and is not part of the decision.

Profiles:
    clean      latency 0-200 ms, always the right answer
    mixed      latency 0-200 ms; 7 % of the attempts get a fault that fails them (1 % each:
               500, 502, 503, 503 with Retry-After: 0, a reset before or during the body,
               truncated JSON), 5 % one redirect
    transient  latency 0-200 ms; 10 % of the attempts get a fault a retry can cure: 502,
               503 (with and without Retry-After: 0), a reset before or during the body
    stall      latency 0-200 ms, and 20 % of the attempts stall for 30 s before answering
    deadline   latency 0-200 ms; 28 % of the attempts get a fault that fails them (4 % each),
               6 % a redirect, 10 % stall for 30 s
    failfast   like deadline, but the root (book) never stalls
    auth       latency 0-200 ms; 401 unless the request carries the run's current token
               (see /_token); responses may be cached for a minute
    soak       no latency, no faults (for counting requests per second)
    cacheable  like soak, and responses may be cached for a minute
    faulty     like soak (no latency, only counted), with the faults and redirects of mixed

Resources (relative links throughout, so a document is the same under every prefix):
    book               the root: owner (to-one), contacts (to-many links), groups (one link
                       to a collection), settings (embedded, linking a theme)
    contacts/<i>       i in 1...24: website, company (to-one links), friends (to-many links),
                       address (embedded, linking a country), phones (embedded array)
    websites/<i>, companies/<k> (linking headquarters/<k>), headquarters/<k>,
    countries/<k>, themes/<name>, groups (items embedded, each linking its members)
    A redirect sends the client to the same target with ``redirected=1`` added to its query;
    that target always answers correctly.

Control routes (never faulted, never logged):
    /_log?prefix=P       {"entries": [...]}: every request whose path starts with P, in arrival
                         order, with its attempt, fault, latency and state (in-progress,
                         completed, client-closed)
    /_stats?run=R        {"openConnections", "inProgress", "requests", "faults": {kind: n}}
                         for connections whose first request belonged to run R
    /_token?run=R        issues a new token for run R (the old one stops working) and returns it,
                         after ``delayMs`` milliseconds when the query says so
    /_expire?run=R       the run's current token stops working (no new one is issued)
    /_tokens?run=R       {"issued", "rejectedTokens"}: tokens issued, and how many distinct
                         tokens were refused after they expired
    /_forget?run=R       drops run R's log and counters
"""

import hashlib
import json
import select
import socket
import struct
import sys
import threading
import time
import urllib.parse

# The shared module sits next to this script, inside the test target's sources: writing its
# bytecode there would leave a __pycache__ directory that SwiftPM reports as an unhandled file.
sys.dont_write_bytecode = True
import loopback_server  # noqa: E402 - after the setting above

HAL = "application/hal+json"
PROBLEM = "application/problem+json"
CONTACTS = 24
STALL_SECONDS = 30.0

_lock = threading.Lock()
_attempts = {}  # target -> requests seen
_log = []  # dicts, in arrival order (not for the soak profiles: they only count)
_UNLOGGED = {"soak", "cacheable", "faulty"}
_runs = {}  # run -> {"requests": n, "inProgress": n, "faults": {kind: n}}
_connections = {}  # id -> {"run": run or None, "open": bool}
_tokens = {}  # run -> {"current": str or None, "issued": int, "rejected": set}

# MARK: Decisions


def _draw(profile, seed, resource, attempt, salt):
    """A number in [0, 1) that depends on nothing but its arguments."""
    text = "%s|%s|%s|%d|%s" % (profile, seed, resource, attempt, salt)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return struct.unpack(">Q", digest[:8])[0] / float(1 << 64)


# (fault, weight) per profile; the weights of each profile add up to 1.
_FAULTS = {
    "mixed": [("ok", 0.88), ("status-500", 0.01), ("status-502", 0.01), ("status-503", 0.01),
              ("status-503-retry-after", 0.01), ("reset-before-body", 0.01), ("reset-during-body", 0.01),
              ("truncated-json", 0.01), ("redirect", 0.05)],
    "transient": [("ok", 0.90), ("status-502", 0.02), ("status-503", 0.02), ("status-503-retry-after", 0.02),
                  ("reset-before-body", 0.02), ("reset-during-body", 0.02)],
    "stall": [("ok", 0.80), ("stall", 0.20)],
    "deadline": [("ok", 0.56), ("stall", 0.10), ("status-500", 0.04), ("status-502", 0.04), ("status-503", 0.04),
                 ("status-503-retry-after", 0.04), ("reset-before-body", 0.04), ("reset-during-body", 0.04),
                 ("truncated-json", 0.04), ("redirect", 0.06)],
}
_FAULTS["failfast"] = _FAULTS["deadline"]
_FAULTS["faulty"] = _FAULTS["mixed"]
_LATENT = {"clean", "mixed", "transient", "stall", "deadline", "failfast", "auth"}


def decide(profile, seed, resource, attempt, redirected):
    """(fault, latency in ms) for one request."""
    latency = 0
    if profile in _LATENT:
        latency = int(_draw(profile, seed, resource, attempt, "latency") * 200)
    if redirected or profile not in _FAULTS:
        return "ok", latency
    point = _draw(profile, seed, resource, attempt, "fault")
    for fault, weight in _FAULTS[profile]:
        if point < weight:
            if fault == "stall" and profile == "failfast" and resource == "book":
                return "ok", latency
            return fault, latency
        point -= weight
    return "ok", latency


# MARK: The graph


def _link(href):
    return {"href": href}


def document(resource):
    """The HAL document of a resource (relative to the profile's prefix), or None."""
    parts = resource.split("/")
    if resource == "book":
        settings = {"_links": {"theme": _link("themes/dark")}, "language": "en"}
        return {"_links": {"self": _link("book"), "owner": _link("contacts/1"),
                           "contacts": [_link("contacts/%d" % i) for i in range(1, 9)],
                           "groups": _link("groups")},
                "_embedded": {"settings": settings},
                "name": "Address book"}
    if resource == "groups":
        items = []
        for g in range(3):
            members = [_link("contacts/%d" % (1 + (g * 5 + m * 3) % CONTACTS)) for m in range(3)]
            items.append({"_links": {"members": members}, "group": g, "name": "Group %d" % g})
        return {"_links": {"self": _link("groups")}, "_embedded": {"item": items}, "count": 3}
    if len(parts) != 2:
        return None
    kind, key = parts
    if kind == "contacts":
        try:
            i = int(key)
        except ValueError:
            return None
        if not 1 <= i <= CONTACTS:
            return None
        friends = [1 + (i * 2) % CONTACTS, 1 + (i + 4) % CONTACTS]
        return {"_links": {"self": _link("%d" % i), "website": _link("../websites/%d" % i),
                           "company": _link("../companies/%d" % (i % 3)),
                           "friends": [_link("../contacts/%d" % f) for f in friends]},
                "_embedded": {"address": {"_links": {"country": _link("../countries/%d" % (i % 4))},
                                          "street": "%d Chaos Street" % i},
                              "phones": [{"kind": "home", "number": "+1-555-%04d" % i},
                                         {"kind": "work", "number": "+1-555-%04d" % (i + 5000)}]},
                "id": i, "name": "Contact %d" % i}
    if kind == "websites":
        return {"_links": {"self": _link(key)}, "url": "https://site-%s.example" % key, "owner": "contacts/" + key}
    if kind == "companies":
        return {"_links": {"self": _link(key), "headquarters": _link("../headquarters/" + key)},
                "name": "Company %s" % key}
    if kind == "headquarters":
        return {"_links": {"self": _link(key)}, "city": "City %s" % key, "company": "companies/" + key}
    if kind == "countries":
        return {"_links": {"self": _link(key)}, "code": "C%s" % key}
    if kind == "themes":
        return {"_links": {"self": _link(key)}, "theme": key}
    return None


# MARK: Serving


class Handler(loopback_server.QuietHandler):
    server_version = "HalleyChaosServer/1"

    def setup(self):
        super().setup()
        with _lock:
            _connections[id(self)] = {"run": None, "open": True}

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass
        with _lock:
            _connections.pop(id(self), None)

    def do_GET(self):
        self._dispatch()

    def do_HEAD(self):
        self._dispatch()

    def _dispatch(self):
        try:
            parsed = urllib.parse.urlsplit(self.path)
            if parsed.path.startswith("/_"):
                # Control connections close after each answer, so they never count among the
                # connections a test watches (its own client's, to the same port).
                self.close_connection = True
                return self._control(parsed.path, urllib.parse.parse_qs(parsed.query))
            return self._serve(parsed)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True
            return None

    # MARK: Control

    def _control(self, path, query):
        def value(name, default=""):
            return query.get(name, [default])[0]

        run = value("run")
        if path == "/_log":
            prefix = value("prefix")
            with _lock:
                entries = [dict(e) for e in _log if e["path"].startswith(prefix)]
            return self._json(200, "application/json", {"entries": entries})
        if path == "/_stats":
            with _lock:
                open_count = sum(1 for c in _connections.values() if c["run"] == run)
                counts = _runs.get(run, {"requests": 0, "inProgress": 0, "faults": {}})
                reply = {"openConnections": open_count, "inProgress": counts["inProgress"],
                         "requests": counts["requests"], "faults": dict(counts["faults"])}
            return self._json(200, "application/json", reply)
        if path == "/_token":
            # A slow token endpoint is one more thing a call's deadline must not wait for.
            try:
                delay = min(max(int(value("delayMs", "0")), 0), 30_000) / 1000.0
            except ValueError:
                delay = 0
            if delay and not self._sleep(delay):
                return None
            with _lock:
                state = _tokens.setdefault(run, {"issued": 0, "rejected": set()})
                state["issued"] += 1
                state["current"] = "%s-%d" % (run, state["issued"])
                token = state["current"]
            return self._json(200, "application/json", {"token": token})
        if path == "/_expire":
            with _lock:
                state = _tokens.get(run)
                if state is not None:
                    state["current"] = None
            return self._json(200, "application/json", {"expired": run})
        if path == "/_tokens":
            with _lock:
                state = _tokens.get(run, {"issued": 0, "rejected": set()})
                reply = {"issued": state["issued"], "rejectedTokens": len(state["rejected"])}
            return self._json(200, "application/json", reply)
        if path == "/_forget":
            with _lock:
                _log[:] = [e for e in _log if e["run"] != run]
                _runs.pop(run, None)
                prefix = "/r/%s/" % run
                for key in [k for k in _attempts if k.startswith(prefix)]:
                    del _attempts[key]
                _tokens.pop(run, None)
            return self._json(200, "application/json", {"forgotten": run})
        return self._json(404, PROBLEM, {"title": "Not Found", "status": 404})

    # MARK: The graph, with faults

    def _serve(self, parsed):
        parts = parsed.path.split("/", 5)  # "", "r", run, profile, seed, resource
        if len(parts) != 6 or parts[1] != "r":
            return self._json(404, PROBLEM, {"title": "Not Found", "status": 404})
        _, _, run, profile, seed, resource = parts
        redirected = "redirected=1" in parsed.query.split("&")
        target = self.path
        with _lock:
            attempt = _attempts.get(target, 0) + 1
            _attempts[target] = attempt
            connection = _connections.get(id(self))
            if connection is not None and connection["run"] is None:
                connection["run"] = run
        fault, latency = decide(profile, seed, resource, attempt, redirected)
        if profile == "auth" and not self._authorized(run):
            fault = "status-401"
        entry = {"run": run, "path": parsed.path, "target": target, "attempt": attempt, "fault": fault,
                 "latencyMs": latency, "state": "in-progress", "redirected": redirected}
        with _lock:
            counts = _runs.setdefault(run, {"requests": 0, "inProgress": 0, "faults": {}})
            counts["requests"] += 1
            counts["inProgress"] += 1
            counts["faults"][fault] = counts["faults"].get(fault, 0) + 1
            if profile not in _UNLOGGED:
                _log.append(entry)

        state = "completed"
        try:
            if not self._answer(fault, latency, profile, resource, parsed):
                state = "client-closed"
        except OSError:
            state = "client-closed"
            raise
        finally:
            with _lock:
                entry["state"] = state
                counts["inProgress"] -= 1
        return None

    def _answer(self, fault, latency, profile, resource, parsed):
        """Answers one request of the graph as `fault` says; False when the client left first."""
        if fault == "status-401":
            self._json(401, PROBLEM, {"title": "Unauthorized", "status": 401})
            return True
        if not self._sleep(latency / 1000.0 + (STALL_SECONDS if fault == "stall" else 0)):
            return False
        body_value = document(resource)
        if body_value is None:
            self._json(404, PROBLEM, {"title": "Not Found", "status": 404, "detail": resource})
            return True
        extra = {}
        if profile in ("auth", "cacheable"):
            extra["Cache-Control"] = "max-age=60"
        body = (json.dumps(body_value, sort_keys=True) + "\n").encode("utf-8")
        if fault in ("ok", "stall"):
            self._send(200, HAL, body, extra)
        elif fault.startswith("status-"):
            status = int(fault.split("-")[1])
            headers = {"Retry-After": "0"} if fault.endswith("retry-after") else {}
            self._json(status, PROBLEM, {"title": "Chaos", "status": status}, headers)
        elif fault == "reset-before-body":
            self._reset()
        elif fault == "reset-during-body":
            self._head(200, HAL, len(body), extra)
            self.wfile.write(body[: len(body) // 2])
            self._reset()
        elif fault == "truncated-json":
            self._send(200, HAL, body[: len(body) // 2], extra)
        elif fault == "redirect":
            separator = "&" if parsed.query else ""
            location = parsed.path + "?" + parsed.query + separator + "redirected=1"
            self._send(302, "text/plain", b"redirecting\n", {"Location": location})
        return True

    def _authorized(self, run):
        presented = (self.headers.get("Authorization") or "")[len("Bearer "):]
        with _lock:
            state = _tokens.get(run)
            if state is None:
                return False
            if presented and presented == state["current"]:
                return True
            if presented:
                state["rejected"].add(presented)
            return False

    def _sleep(self, seconds):
        """Waits, watching the connection: False as soon as the client closes it."""
        deadline = time.monotonic() + seconds
        while True:
            # A last look when the time is up: a thread woken late must still notice a client
            # that left meanwhile.
            remaining = max(0.0, deadline - time.monotonic())
            readable, _, _ = select.select([self.connection], [], [], remaining)
            if not readable:
                return True
            try:
                peeked = self.connection.recv(1, socket.MSG_PEEK)
            except OSError:
                peeked = b""
            if not peeked:
                self.close_connection = True
                return False
            # The client sent more (it should not before the answer): just wait the rest out.
            time.sleep(max(0.0, deadline - time.monotonic()))
            return True

    def _reset(self):
        """Ends the connection with a TCP reset: no more bytes, no orderly close."""
        self.close_connection = True
        try:
            self.wfile.flush()
        except OSError:
            pass
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # The read buffer holds a reference to the socket: the descriptor closes (and the
        # reset goes out) only once both are closed.
        self.rfile.close()
        self.connection.close()

    # MARK: Responses

    def _head(self, status, content_type, length, extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(length))
        if self.close_connection:
            self.send_header("Connection", "close")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _send(self, status, content_type, body, extra=None):
        self._head(status, content_type, len(body), extra)
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status, content_type, value, extra=None):
        self._send(status, content_type, (json.dumps(value) + "\n").encode("utf-8"), extra)


def main():
    parser = loopback_server.argument_parser(__doc__)
    parser.add_argument("--lifetime", type=float, default=900, help="seconds before the server exits by itself")
    args = parser.parse_args()
    loopback_server.serve(parser, args, Handler, queue_size=512, lifetime=args.lifetime)


if __name__ == "__main__":
    main()
