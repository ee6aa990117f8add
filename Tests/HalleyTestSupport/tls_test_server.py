"""TLS test fixtures for Halley (Python 3 standard library, plus the openssl command).

Three commands, each for ``Tests/HalleyTestSupport/TLSServers.swift``:

``certs DIR``
    Makes a private CA and the certificates the TLS tests use, with ``openssl``, in DIR.
    Prints ``OK``, or ``FAILED <why>``; then removes DIR when its stdin reaches end of file
    (or its parent goes away), so the test process leaves nothing behind.

``supervise --dir DIR --free-ports N [--template SRC:DST]... -- COMMAND...``
    Picks N free loopback ports, writes each template with ``@PORT0@``... replaced, starts
    COMMAND (nginx, tinyproxy) with its output in DIR, waits until every port accepts
    connections and prints ``PORTS p0 p1 ...`` (or ``FAILED <why>``). It stops COMMAND, and
    exits, when its stdin reaches end of file (the test process is gone, however it ended),
    when its parent goes away, or after ``--lifetime`` seconds.

``hostile --certs DIR``
    Serves the hostile TLS cases, one port each, and prints
    ``PORTS expired=p wrong-name=p self-signed=p tls10=p tls12=p mtls=p stall=p recorder=p``. A
    case whose handshake succeeds answers every request with a small HAL document. ``tls10``
    is 0 when the local OpenSSL cannot serve TLS 1.0 at all. ``recorder`` is a forward proxy
    that appends every request head it receives, verbatim, to DIR/recorder.log: it tunnels
    ``CONNECT`` to the target, and answers any other request itself with the HAL document.

Every socket binds 127.0.0.1 only.
"""

import argparse
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import warnings

HOST = "127.0.0.1"
BODY = b'{"_links": {"self": {"href": "/"}}, "tls": "ok"}'


def main():
    parser = argparse.ArgumentParser(description="TLS fixtures for Halley's tests")
    commands = parser.add_subparsers(dest="command", required=True)
    certs = commands.add_parser("certs")
    certs.add_argument("dir")
    certs.add_argument("--lifetime", type=float, default=7200)
    supervise_parser = commands.add_parser("supervise")
    supervise_parser.add_argument("--dir", required=True)
    supervise_parser.add_argument("--free-ports", type=int, default=0)
    supervise_parser.add_argument("--template", action="append", default=[])
    supervise_parser.add_argument("--lifetime", type=float, default=7200)
    supervise_parser.add_argument("rest", nargs=argparse.REMAINDER)
    hostile_parser = commands.add_parser("hostile")
    hostile_parser.add_argument("--certs", required=True)
    hostile_parser.add_argument("--lifetime", type=float, default=7200)
    args = parser.parse_args()
    if args.command == "certs":
        make_certificates(args.dir)
        watch(lambda: (shutil.rmtree(args.dir, ignore_errors=True), os._exit(0)), args.lifetime)
    elif args.command == "supervise":
        supervise(args)
    else:
        hostile(args)


# MARK: Certificates

def make_certificates(directory):
    if shutil.which("openssl") is None:
        print("FAILED the openssl command is not installed (apt-get install openssl)", flush=True)
        sys.exit(1)
    os.makedirs(directory, exist_ok=True)

    def path(name):
        return os.path.join(directory, name)

    def openssl(*arguments):
        result = subprocess.run(["openssl", *arguments], cwd=directory, capture_output=True, text=True)
        if result.returncode != 0:
            print("FAILED openssl %s: %s" % (" ".join(arguments), result.stderr.strip()[-400:]), flush=True)
            sys.exit(1)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]

    def authority(name, subject):
        openssl("req", "-x509", *ec, "-nodes", "-keyout", name + ".key", "-out", name + ".pem", "-days", "3",
                "-subj", subject, "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def leaf(name, subject, extensions, ca="ca", encrypt=None):
        with open(path(name + ".ext"), "w") as handle:
            handle.write(extensions + "\nbasicConstraints=CA:FALSE\n")
        openssl("req", *ec, "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj", subject)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
                "-CAcreateserial", "-out", name + ".pem", "-days", "3", "-extfile", name + ".ext")
        if encrypt is not None:
            openssl("pkey", "-in", name + ".key", "-aes256", "-passout", "pass:" + encrypt,
                    "-out", name + "-encrypted.key")

    authority("ca", "/CN=Halley Test CA")
    authority("other-ca", "/CN=Halley Other CA")
    server = "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth"
    leaf("server", "/CN=localhost", server)
    leaf("wrong-name", "/CN=wrong.example", "subjectAltName=DNS:wrong.example\nextendedKeyUsage=serverAuth")
    leaf("client", "/CN=halley-client", "extendedKeyUsage=clientAuth", encrypt="s3cret")
    leaf("stranger", "/CN=stranger", "extendedKeyUsage=clientAuth", ca="other-ca")
    openssl("req", "-x509", *ec, "-nodes", "-keyout", "self-signed.key", "-out", "self-signed.pem", "-days", "3",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1")
    # `openssl x509` cannot back-date a certificate; `openssl ca` can, with a database.
    with open(path("ca.cnf"), "w") as handle:
        handle.write("[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\nnew_certs_dir = .\n"
                     "certificate = ca.pem\nprivate_key = ca.key\nserial = ca.srl\ndefault_md = sha256\n"
                     "policy = any\nunique_subject = no\ncopy_extensions = none\n[any]\ncommonName = supplied\n")
    open(path("index.txt"), "w").close()
    with open(path("expired.ext"), "w") as handle:
        handle.write(server + "\nbasicConstraints=CA:FALSE\n")
    openssl("req", *ec, "-nodes", "-keyout", "expired.key", "-out", "expired.csr", "-subj", "/CN=localhost")
    openssl("ca", "-batch", "-config", "ca.cnf", "-notext", "-in", "expired.csr", "-out", "expired.pem",
            "-extfile", "expired.ext", "-startdate", "20200101000000Z", "-enddate", "20200102000000Z")
    print("OK", flush=True)


# MARK: Supervising nginx and tinyproxy

def free_ports(count):
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((HOST, 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def accepts(port):
    try:
        with socket.create_connection((HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


def supervise(args):
    command = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    ports = free_ports(args.free_ports)
    for pair in args.template:
        source, destination = pair.split(":", 1)
        with open(source) as handle:
            text = handle.read()
        for index, port in enumerate(ports):
            text = text.replace("@PORT%d@" % index, str(port))
        with open(destination, "w") as handle:
            handle.write(text)
    if shutil.which(command[0]) is None and not os.access(command[0], os.X_OK):
        print("FAILED %s is not installed" % command[0], flush=True)
        sys.exit(1)
    output = open(os.path.join(args.dir, os.path.basename(command[0]) + ".out"), "w")
    child = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             cwd=args.dir, start_new_session=True)

    def stop():
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=2)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        os._exit(0)

    deadline = time.monotonic() + 10
    while not all(accepts(port) for port in ports):
        if child.poll() is not None or time.monotonic() > deadline:
            stop_reason = "exited with status %s" % child.returncode if child.poll() is not None else "timed out"
            child.poll() is None and child.kill()
            output.flush()
            with open(output.name) as handle:
                tail = handle.read()[-600:].replace("\n", " | ")
            print("FAILED %s %s: %s" % (command[0], stop_reason, tail), flush=True)
            sys.exit(1)
        time.sleep(0.02)
    print("PORTS " + " ".join(str(port) for port in ports), flush=True)
    watch(stop, args.lifetime, child)


def watch(stop, lifetime, child=None):
    """Calls ``stop`` (which ends the process) once, when stdin closes, the parent goes away,
    a SIGTERM arrives, the lifetime ends or the child exits; never returns."""
    once = threading.Lock()

    def stop_once():
        if once.acquire(blocking=False):
            stop()
        # Another thread is stopping, and will end the process after reaping the child.
        while True:
            time.sleep(60)

    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=stop_once, daemon=True).start())
    threading.Thread(target=lambda: (drain_stdin(), stop_once()), daemon=True).start()
    parent = os.getppid()
    deadline = time.monotonic() + lifetime
    while time.monotonic() < deadline and os.getppid() == parent:
        if child is not None and child.poll() is not None:
            break
        time.sleep(0.2)
    stop_once()


def drain_stdin():
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    except OSError:
        pass


# MARK: Hostile TLS servers

def hostile(args):
    directory = args.certs

    def context(name, maximum=None, minimum=None, client_ca=None, weak=False):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        if weak:
            ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            if minimum is not None:
                ctx.minimum_version = minimum
            if maximum is not None:
                ctx.maximum_version = maximum
        ctx.load_cert_chain(os.path.join(directory, name + ".pem"), os.path.join(directory, name + ".key"))
        if client_ca is not None:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(os.path.join(directory, client_ca + ".pem"))
        return ctx

    cases = {
        "expired": context("expired"),
        "wrong-name": context("wrong-name"),
        "self-signed": context("self-signed"),
        "tls12": context("server", maximum=ssl.TLSVersion.TLSv1_2),
        "mtls": context("server", minimum=ssl.TLSVersion.TLSv1_3, client_ca="ca"),
        "stall": None,
    }
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            cases["tls10"] = context("server", minimum=ssl.TLSVersion.TLSv1, maximum=ssl.TLSVersion.TLSv1, weak=True)
    except (ssl.SSLError, ValueError):
        cases["tls10"] = "unavailable"
    listeners = {}
    for name, ctx in cases.items():
        if ctx == "unavailable":
            listeners[name] = None
            continue
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, 0))
        sock.listen(64)
        listeners[name] = sock
        threading.Thread(target=accept_loop, args=(sock, ctx), daemon=True).start()
    recorder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    recorder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    recorder.bind((HOST, 0))
    recorder.listen(64)
    listeners["recorder"] = recorder
    log = os.path.join(directory, "recorder.log")
    threading.Thread(target=accept_loop, args=(recorder, None, lambda c: record(c, log)), daemon=True).start()
    print("PORTS " + " ".join("%s=%d" % (name, sock.getsockname()[1] if sock else 0)
                              for name, sock in listeners.items()), flush=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.dup2(devnull, sys.stderr.fileno())
    watch(lambda: os._exit(0), args.lifetime)


def accept_loop(sock, ctx, handler=None):
    while True:
        try:
            connection, _ = sock.accept()
        except OSError:
            return
        if handler is not None:
            threading.Thread(target=handler, args=(connection,), daemon=True).start()
        else:
            threading.Thread(target=serve_one, args=(connection, ctx), daemon=True).start()


RECORD_LOCK = threading.Lock()


def read_head(connection):
    """Reads until the end of a request's head; returns what was read (the head and any body
    bytes after it), or None when the peer closes first."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(4096)
        if not chunk:
            return None
        received += chunk
    return received


def record(connection, log):
    connection.settimeout(10)
    try:
        head = read_head(connection)
        if head is None:
            return
        head, _, rest = head.partition(b"\r\n\r\n")
        with RECORD_LOCK, open(log, "ab") as handle:
            handle.write(head + b"\r\n\r\n")
        line = head.split(b"\r\n", 1)[0].split(b" ")
        if line[0] != b"CONNECT":
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/hal+json\r\n"
                               b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(BODY), BODY))
            return
        host, _, port = line[1].decode().rpartition(":")
        upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
        connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if rest:
            upstream.sendall(rest)
        relay(connection, upstream)
    except (OSError, ValueError):
        pass
    finally:
        connection.close()


def relay(client, upstream):
    def pump(source, destination):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                destination.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, destination):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
    other = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    other.start()
    pump(client, upstream)
    other.join(timeout=10)
    upstream.close()


def serve_one(connection, ctx):
    connection.settimeout(10)
    try:
        if ctx is None:
            # Reads the ClientHello and never answers: a handshake that stalls.
            while connection.recv(4096):
                pass
            return
        # The SSL socket takes the connection's descriptor over, so it is the one to close.
        tls = ctx.wrap_socket(connection, server_side=True, do_handshake_on_connect=False)
        try:
            tls.do_handshake()
        except (OSError, ssl.SSLError):
            # OpenSSL has sent its alert. Closing now, with the client's request unread, would
            # reset the connection, and the reset can overtake the alert: end the sending side,
            # let the client read the alert and hang up first.
            try:
                tls.shutdown(socket.SHUT_WR)
                tls.settimeout(2)
                while tls.recv(4096):
                    pass
            except OSError:
                pass
            finally:
                tls.close()
            return
        if read_head(tls) is None:
            return
        tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/hal+json\r\nContent-Length: %d\r\n"
                    b"Connection: close\r\n\r\n%s" % (len(BODY), BODY))
        tls.close()
    except (OSError, ssl.SSLError):
        pass
    finally:
        connection.close()


if __name__ == "__main__":
    main()
