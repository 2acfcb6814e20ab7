#!/usr/bin/env python3
"""faults.py: a TCP server on 127.0.0.1 that answers HTTP clients badly.

    faults.py --port-file FILE [--seed N] [--fixtures DIR] [--max-seconds N]

Each connection gets one fault, chosen at random (reproducibly: the seed and
the connection's number decide): closing at once, a reset, random bytes, a
banner of another protocol, a status line and headers that stop anywhere,
a body cut at a random byte, broken chunked framing, a real recorded answer
(tests/fixtures) with bytes flipped, dropped or repeated and cut anywhere,
the same as SSE or NDJSON under the wrong content type, an HTML page, a
slow trickle, and answers that are fine.  It stands for a port that some
other server reused, or a network that cuts connections, so that a client
can be run against it many times under a sanitizer.  The port goes to FILE
(written under a temporary name, then renamed); each connection's fault is
logged on stderr as "N KIND" when --verbose is given.
"""
import argparse
import os
import random
import socket
import socketserver
import struct
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load_fixtures(root):
    out = []
    for dirpath, _, names in os.walk(root):
        for n in sorted(names):
            if n.endswith((".sse", ".json", ".ndjson")):
                with open(os.path.join(dirpath, n), "rb") as f:
                    out.append((n, f.read()))
    return out


def ctype_of(name):
    if name.endswith(".sse"):
        return b"text/event-stream"
    if name.endswith(".ndjson"):
        return b"application/x-ndjson"
    return b"application/json"


def mutate(rng, data):
    """Flip, drop, repeat or insert bytes, a few times."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not b:
            break
        i = rng.randrange(len(b))
        op = rng.randrange(5)
        if op == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            del b[i:i + rng.randint(1, 64)]
        elif op == 2:
            b[i:i] = b[i:i + rng.randint(1, 64)]
        elif op == 3:
            b[i:i] = bytes(rng.choice((0, 0x0d, 0x0a, 0x22, 0x5c, 0x7b, 0x7d, 0xff, 0xc3))
                           for _ in range(rng.randint(1, 4)))
        else:
            b[i] = rng.randrange(256)
    return bytes(b)


def head(status=b"200 OK", ctype=b"application/json", extra=b"", length=None, chunked=False):
    h = b"HTTP/1.1 " + status + b"\r\nContent-Type: " + ctype + b"\r\n"
    if length is not None:
        h += b"Content-Length: %d\r\n" % length
    if chunked:
        h += b"Transfer-Encoding: chunked\r\n"
    return h + extra + b"Connection: close\r\n\r\n"


def chunk(data):
    return b"%x\r\n%s\r\n" % (len(data), data)


class Handler(socketserver.BaseRequestHandler):
    def setup(self):
        srv = self.server
        with srv.lock:
            srv.count += 1
            self.n = srv.count
        self.rng = random.Random("%d/%d" % (srv.seed, self.n))
        self.request.settimeout(10)

    def read_request(self):
        """The request's head and body, or whatever arrives before the client stops."""
        data = b""
        try:
            while b"\r\n\r\n" not in data and len(data) < 1 << 20:
                got = self.request.recv(65536)
                if not got:
                    return data
                data += got
            headers, _, body = data.partition(b"\r\n\r\n")
            length = 0
            for line in headers.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1].strip() or b"0")
            while len(body) < length:
                got = self.request.recv(65536)
                if not got:
                    break
                body += got
        except (OSError, ValueError):
            pass
        return data

    def send(self, data):
        try:
            self.request.sendall(data)
        except OSError:
            pass

    def cut(self, data):
        """Send a random prefix of data."""
        self.send(data[:self.rng.randint(0, len(data))])

    def reset(self):
        try:
            self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass

    def handle(self):
        rng, fx = self.rng, self.server.fixtures
        kind = rng.choice(KINDS)
        if self.server.verbose:
            print("%d %s" % (self.n, kind), file=sys.stderr, flush=True)
        if kind != "silent_close" and rng.random() < 0.9:
            self.read_request()
        name, data = rng.choice(fx)
        if kind == "silent_close":
            return
        if kind == "reset":
            self.reset()
        elif kind == "garbage":
            self.send(os.urandom(rng.randint(1, 4096)) if rng.random() < 0.5 else
                      bytes(rng.randrange(256) for _ in range(rng.randint(1, 2048))))
        elif kind == "banner":
            self.send(rng.choice((b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n", b"220 mail ESMTP Postfix\r\n",
                                  b"+OK POP3 ready\r\n", b"* OK IMAP4rev1\r\n", b"\x16\x03\x01\x00\xa5\x01",
                                  b"RFB 003.008\n", b"HTTP/1.1\r\n\r\n", b"HTTP/2 200\r\n\r\n")))
        elif kind == "head_cut":
            self.cut(head(ctype=ctype_of(name), length=len(data)))
        elif kind == "body_cut":
            self.send(head(ctype=ctype_of(name), length=len(data)))
            self.cut(data)
            if rng.random() < 0.5:
                self.reset()
        elif kind == "chunked_cut":
            out = head(ctype=ctype_of(name), chunked=True)
            i = 0
            while i < len(data):
                k = rng.randint(1, 512)
                out += chunk(data[i:i + k])
                i += k
            self.cut(out + b"0\r\n\r\n")
        elif kind == "chunked_bad":
            self.send(head(ctype=ctype_of(name), chunked=True) +
                      rng.choice((b"zz\r\nxx\r\n", b"ffffffffffffffff\r\n", b"5\r\nabc",
                                  b"-1\r\n\r\n", b"3\r\nabcdef\r\n0\r\n\r\n")))
        elif kind == "mutated":
            body = mutate(rng, data)
            if rng.random() < 0.5:
                self.send(head(ctype=ctype_of(name), length=len(body)) + body)
            else:
                self.send(head(ctype=ctype_of(name), chunked=True) + chunk(body) +
                          (b"0\r\n\r\n" if rng.random() < 0.7 else b""))
        elif kind == "mutated_cut":
            body = mutate(rng, data)
            self.send(head(ctype=ctype_of(name), chunked=True))
            self.cut(chunk(body) + b"0\r\n\r\n")
        elif kind == "wrong_type":
            self.send(head(ctype=rng.choice((b"text/html", b"text/plain", b"application/json",
                                             b"text/event-stream", b"application/x-ndjson",
                                             b"application/octet-stream")), length=len(data)) + data)
        elif kind == "html":
            page = b"<!doctype html><html><head><title>It works</title></head><body>" + \
                b"<h1>It works!</h1>" * rng.randint(1, 500) + b"</body></html>\n"
            self.send(head(status=rng.choice((b"200 OK", b"404 Not Found", b"502 Bad Gateway")),
                           ctype=b"text/html", length=len(page)) + page)
        elif kind == "status":
            body = mutate(rng, data) if rng.random() < 0.5 else data
            status = rng.choice((b"100 Continue", b"204 No Content", b"301 Moved Permanently",
                                 b"304 Not Modified", b"401 Unauthorized", b"429 Too Many Requests",
                                 b"500 Internal Server Error", b"529 Overloaded", b"999 What",
                                 b"200", b"2000 OK", b"abc"))
            extra = b"Location: " + rng.choice((b"/x", b"file:///etc/passwd", b"http://[::1", b"")) + \
                b"\r\nRetry-After: " + rng.choice((b"0", b"1", b"-5", b"99999999999", b"soon")) + b"\r\n"
            self.send(head(status=status, ctype=ctype_of(name), extra=extra, length=len(body)) + body)
        elif kind == "headers_junk":
            junk = b"".join(bytes(rng.randrange(32, 127) for _ in range(rng.randint(1, 80))) + b"\r\n"
                            for _ in range(rng.randint(1, 40)))
            self.send(b"HTTP/1.1 200 OK\r\n" + junk + b"\r\n" + data[:rng.randint(0, len(data))])
        elif kind == "trickle":
            out = head(ctype=ctype_of(name), length=len(data)) + data
            out = out[:rng.randint(0, len(out))]
            for i in range(0, len(out), 7):
                self.send(out[i:i + 7])
                time.sleep(0.001)
        elif kind == "fine":
            self.send(head(ctype=ctype_of(name), length=len(data)) + data)
        try:
            self.request.shutdown(socket.SHUT_WR)
        except OSError:
            pass


KINDS = ["silent_close", "reset", "garbage", "banner", "head_cut", "body_cut", "chunked_cut",
         "chunked_bad", "mutated", "mutated", "mutated_cut", "mutated_cut", "wrong_type", "html",
         "status", "headers_junk", "trickle", "fine"]


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--fixtures", default=os.path.join(HERE, "..", "fixtures"))
    ap.add_argument("--max-seconds", type=int, default=600)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    srv.lock = threading.Lock()
    srv.count = 0
    srv.seed = args.seed
    srv.verbose = args.verbose
    srv.fixtures = load_fixtures(args.fixtures)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    threading.Timer(args.max_seconds, lambda: os._exit(0)).start()
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()
