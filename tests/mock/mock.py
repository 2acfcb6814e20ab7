#!/usr/bin/env python3
"""Loopback mock of the HTTP APIs the aicli tools call.

Serves recorded responses (tests/fixtures/) for the OpenAI, Anthropic, Ollama,
Gemini, Google Custom Search, Brave, SearXNG and Tavily endpoints, replays
scripted responses per route, injects faults (status codes, delays, slow or
cut streams, malformed framing, oversized bodies, connection resets) and logs
every request as NDJSON.  Standard library only.  See README.md beside this
file for the script format, the log format and the fault list.

The process never outlives its purpose: it exits after --max-seconds and as
soon as the process that started it dies.
"""

import argparse
import email.utils
import http.server
import json
import os
import re
import socket
import struct
import sys
import threading
import time
import urllib.parse

MAX_REQUEST_BODY = 64 * 1024 * 1024   # refuse larger request bodies (413)
SOCKET_TIMEOUT = 15                   # seconds, for every read and write on a client socket
BIG_CHUNK = 16 * 1024                 # piece size for large non-stream bodies

STREAM_TYPES = ("text/event-stream", "application/x-ndjson")
EXT_TYPES = {".sse": "text/event-stream", ".ndjson": "application/x-ndjson", ".json": "application/json"}
REASONS = dict((s.value, s.phrase) for s in http.HTTPStatus)
REASONS.update({529: "Site is overloaded"})

RESP_FIELDS = {
    "status": int, "headers": dict, "content_type": str,
    "file": str, "body": str, "json": object,
    "delay_ms": int, "drip_ms": int, "drip_bytes": int, "chunked": bool,
    "cut_after_bytes": int, "cut_mid_event": int, "malformed": str,
    "malformed_chunk": bool, "oversize_bytes": int, "reset": bool, "wait_for": str,
    "echo": bool,
}
WAIT_FOR_SECONDS = 10
BODY_SOURCES = ("file", "body", "json", "oversize_bytes")
FRAMING_HEADERS = ("content-length", "transfer-encoding", "connection")

# Werkzeug's default 403 page, which is what SearXNG's flask.abort(403) sends.
SEARXNG_403 = (b"<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n"
               b"<h1>Forbidden</h1>\n<p>You don&#39;t have the permission to access the requested "
               b"resource. It is either read-protected or not readable by the server.</p>\n")


class ScriptError(ValueError):
    """A script posted to /__mock/script is not valid."""


def media_type(content_type):
    return content_type.split(";", 1)[0].strip().lower()


def type_for_file(path):
    return EXT_TYPES.get(os.path.splitext(path)[1].lower(), "application/octet-stream")


def error_json(message):
    return json.dumps({"error": {"message": message}}, separators=(",", ":")).encode()


def wants_stream(req, default):
    """The "stream" field of a JSON request body; `default` when absent or null."""
    doc = req["json"]
    value = doc.get("stream") if isinstance(doc, dict) else None
    return default if value is None else value is True


# Default routes, tried in order: (method, path test, handler).  A handler gets the
# request and returns (status, content_type, fixture path or bytes).
def _openai_responses(req):
    if wants_stream(req, False):
        return 200, None, "openai/responses_stream_text.sse"
    return 200, None, "openai/responses_nonstream_text.json"


def _chat_completions(req):
    if wants_stream(req, False):
        return 200, None, "openai/chat_completions_stream_text_include_usage.sse"
    return 200, None, "openai/chat_completions_nonstream_text.json"


def _anthropic_messages(req):
    if wants_stream(req, False):
        return 200, None, "anthropic/messages_stream_text.sse"
    return 200, None, "anthropic/messages_nonstream_text.json"


def _ollama_chat(req):
    # Ollama streams unless the request says "stream": false.
    if wants_stream(req, True):
        return 200, None, "ollama/chat_stream.ndjson"
    return 200, None, "ollama/chat_nonstream_tool_calls.json"


def _gemini(req):
    if req["path"].endswith(":generateContent"):
        return 200, None, "gemini/generate_content_text.json"
    if "sse" in req["query"].get("alt", []):
        return 200, None, "gemini/stream_generate_content_text_sse.sse"
    return 200, None, "gemini/stream_generate_content_text.json"


def _searxng(req):
    # SearXNG answers 403 when the requested output format is not enabled; the mock
    # treats every format but json that way, including none at all.
    if req["query"].get("format", [""])[-1] != "json":
        return 403, "text/html; charset=utf-8", SEARXNG_403
    return 200, None, "search/searxng_search_response.json"


def _post_search(req):
    # Tavily and Exa both answer POST /search; Exa's clients send the key as x-api-key,
    # Tavily's as a Bearer token.
    if "x-api-key" in req["headers"]:
        return 200, None, "search/exa_search_response.json"
    return 200, None, "search/tavily_search_response.json"


DEFAULT_ROUTES = [
    ("POST", lambda p: p.endswith("/responses"), _openai_responses),
    ("POST", lambda p: p.endswith("/chat/completions"), _chat_completions),
    ("POST", lambda p: p.endswith("/v1/messages"), _anthropic_messages),
    ("POST", lambda p: p.endswith("/api/chat"), _ollama_chat),
    ("POST", lambda p: re.search(r"/models/[^/]+:(generateContent|streamGenerateContent)$", p), _gemini),
    ("GET", lambda p: p.endswith("/customsearch/v1"),
     lambda r: (200, None, "search/google_customsearch_v1_response.json")),
    ("GET", lambda p: p.endswith("/res/v1/web/search"),
     lambda r: (200, None, "search/brave_web_search_response.json")),
    ("GET", lambda p: p.endswith("/search"), _searxng),
    ("POST", lambda p: p.endswith("/search"), _post_search),
]


def last_user_text(doc):
    """The text of the last user message of an OpenAI, Chat Completions or Anthropic request."""
    if not isinstance(doc, dict):
        return ""
    items = doc.get("input", doc.get("messages"))
    if isinstance(items, str):
        return items
    text = ""
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            text = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return text


ECHO_MARK = re.compile(r"\[(delay|status) (\d+)\]")


def echo_body(fixture, text):
    """A recorded non-streamed answer with its text replaced by an echo of the prompt."""
    doc = json.loads(fixture)
    answer = "echo: " + text
    if "output" in doc:                       # OpenAI Responses
        for item in doc["output"]:
            for part in item.get("content", []):
                if part.get("type") == "output_text":
                    part["text"] = answer
    elif "choices" in doc:                    # Chat Completions
        doc["choices"][0]["message"]["content"] = answer
    elif "content" in doc:                    # Anthropic Messages: a whole answer
        doc["content"] = [{"type": "text", "text": answer}]
        doc["stop_reason"] = "end_turn"
    return json.dumps(doc).encode("utf-8")


class RateLimit:
    """N requests a minute per key, as a bucket of one second's worth refilled evenly."""

    def __init__(self, rpm):
        self.rpm = rpm
        self.cap = max(1.0, rpm / 60.0)
        self.buckets = {}
        self.limited = 0

    def take(self, key):
        """(allowed, remaining, seconds): allowed, the seconds until the bucket is full again
        (OpenAI's reset); refused, the seconds until the next request may come (Retry-After)."""
        now = time.monotonic()
        level, last = self.buckets.get(key, (self.cap, now))
        level = min(self.cap, level + (now - last) * self.rpm / 60.0)
        if level >= 1.0:
            level -= 1.0
            self.buckets[key] = (level, now)
            return True, int(level), (self.cap - level) * 60.0 / self.rpm
        self.buckets[key] = (level, now)
        self.limited += 1
        return False, 0, (1.0 - level) * 60.0 / self.rpm


def rate_limit_headers(path, rpm, remaining, wait):
    """The provider's own rate-limit headers: Anthropic's for /v1/messages, else OpenAI's.
    A 429 says when the next request may come; an answer, when all of them are back."""
    if path.endswith("/messages"):
        reset = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + wait + 0.999))
        return [("anthropic-ratelimit-requests-limit", str(rpm)),
                ("anthropic-ratelimit-requests-remaining", str(remaining)),
                ("anthropic-ratelimit-requests-reset", reset)]
    return [("x-ratelimit-limit-requests", str(rpm)),
            ("x-ratelimit-remaining-requests", str(remaining)),
            ("x-ratelimit-reset-requests", "%dms" % max(1, int(wait * 1000 + 0.999)))]


def default_route(req):
    for method, matches, handler in DEFAULT_ROUTES:
        if req["method"] == method and matches(req["path"]):
            return handler
    return None


def validate_script(doc, fixtures):
    """Check a script; raise ScriptError naming the first problem."""
    if not isinstance(doc, dict):
        raise ScriptError("script must be a JSON object")
    unknown = set(doc) - {"routes", "repeat_last", "rate_limit", "batch_polls"}
    if unknown:
        raise ScriptError("unknown top-level field(s): %s" % ", ".join(sorted(unknown)))
    if not isinstance(doc.get("repeat_last", False), bool):
        raise ScriptError("repeat_last must be true or false")
    bp = doc.get("batch_polls", 0)
    if not isinstance(bp, int) or isinstance(bp, bool) or bp < 0:
        raise ScriptError("batch_polls must be a non-negative integer")
    rl = doc.get("rate_limit", 0)
    if not isinstance(rl, int) or isinstance(rl, bool) or rl < 0:
        raise ScriptError("rate_limit must be a non-negative integer (requests a minute)")
    routes = doc.get("routes", {})
    if not isinstance(routes, dict):
        raise ScriptError("routes must be an object")
    for key, resps in routes.items():
        m = re.fullmatch(r"([A-Z]+) (/\S*)", key)
        if not m or "?" in key:
            raise ScriptError("route key %r must be 'METHOD /path' (no query string)" % key)
        if not isinstance(resps, list):
            raise ScriptError("routes[%r] must be a list of responses" % key)
        for i, resp in enumerate(resps, 1):
            where = "routes[%r][%d]" % (key, i)
            if not isinstance(resp, dict):
                raise ScriptError("%s must be an object" % where)
            for name, value in resp.items():
                want = RESP_FIELDS.get(name)
                if want is None:
                    raise ScriptError("%s: unknown field %r" % (where, name))
                if want is int and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                    raise ScriptError("%s: %s must be a non-negative integer" % (where, name))
                if want is not int and want is not object and not isinstance(value, want):
                    raise ScriptError("%s: %s must be a %s" % (where, name, want.__name__))
            sources = [s for s in BODY_SOURCES if s in resp]
            if len(sources) > 1:
                raise ScriptError("%s: give at most one of %s" % (where, ", ".join(sources)))
            if "status" in resp and not 100 <= resp["status"] <= 999:
                raise ScriptError("%s: status must be 100..999" % where)
            if resp.get("cut_mid_event") == 0:
                raise ScriptError("%s: cut_mid_event counts from 1" % where)
            if resp.get("drip_bytes") == 0:
                raise ScriptError("%s: drip_bytes must be at least 1" % where)
            if resp.get("malformed_chunk") and resp.get("chunked") is False:
                raise ScriptError("%s: malformed_chunk needs chunked encoding" % where)
            for name, value in resp.get("headers", {}).items():
                if not isinstance(value, str):
                    raise ScriptError("%s: header %r must be a string" % (where, name))
                if name.lower() in FRAMING_HEADERS:
                    raise ScriptError("%s: header %r is set by the mock (see chunked, cut_*)" % (where, name))
            if "file" in resp and not os.path.isfile(os.path.join(fixtures, resp["file"])):
                raise ScriptError("%s: no such fixture file %r" % (where, resp["file"]))


BATCH_ROUTES = [
    ("POST", re.compile(r".*/v1/files$"), "upload"),
    ("GET", re.compile(r".*/v1/files/([^/]+)/content$"), "file"),
    ("POST", re.compile(r".*/v1/batches$"), "create"),
    ("GET", re.compile(r".*/v1/batches/([^/]+)$"), "get"),
    ("POST", re.compile(r".*/v1/messages/batches$"), "create"),
    ("GET", re.compile(r".*/v1/messages/batches/([^/]+)$"), "get"),
    ("GET", re.compile(r".*/v1/messages/batches/([^/]+)/results$"), "results"),
]


def batch_route(req):
    """(action, captured id) for a request to a batch endpoint, else None.
    Anthropic's batch paths are tried first: /v1/messages/batches also ends in /v1/batches."""
    for method, pat, action in sorted(BATCH_ROUTES, key=lambda r: "messages" not in r[1].pattern):
        m = pat.fullmatch(req["path"])
        if req["method"] == method and m:
            return action, (m.group(1) if m.groups() else None), "/v1/messages/" in req["path"]
    return None


def multipart_file(req):
    """The content of the "file" part of a multipart/form-data body, and the purpose."""
    m = re.search(r"boundary=([^;]+)", req["headers"].get("content-type", ""))
    if not m:
        return None, None
    parts, found, purpose = req["raw"].split(b"--" + m.group(1).strip('"').encode()), None, None
    for part in parts:
        head, _, data = part.partition(b"\r\n\r\n")
        data = data[:-2] if data.endswith(b"\r\n") else data
        if b'name="file"' in head:
            found = data
        elif b'name="purpose"' in head:
            purpose = data.decode("utf-8", "replace")
    return found, purpose


class State:
    """Script, counters and request log, shared by all handler threads under one lock."""

    def __init__(self, log_path):
        self.lock = threading.Lock()
        self.log_path = log_path
        self.log = open(log_path, "wb") if log_path else None
        self.lines = []
        self.default_rpm = 0
        self.clear(None)

    def clear(self, script):
        """Install `script` (None: no script), zero the counters, empty the log. Caller holds the lock."""
        self.script = script
        rpm = (script or {}).get("rate_limit", 0) or self.default_rpm
        self.rate = RateLimit(rpm) if rpm else None
        self.n = 0
        self.route_counts = {}
        self.files = {}      # the batch API's files: id -> bytes
        self.batches = {}    # id -> the batch object, its requests and polls
        self.lines = []
        if self.log:
            self.log.seek(0)
            self.log.truncate()
            self.log.flush()

    def record(self, req):
        """Count and log one request; return (route_n, scripted RESP or None, exhausted)."""
        key = "%s %s" % (req["method"], req["path"])
        with self.lock:
            self.n += 1
            route_n = self.route_counts.get(key, 0) + 1
            self.route_counts[key] = route_n
            entry = {
                "n": self.n, "route_n": route_n,
                "method": req["method"], "path": req["path"], "query": req["query"],
                "headers": req["headers"], "body": req["text"], "json": req["json"],
            }
            line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8", "replace")
            self.lines.append(line)
            if self.log:
                self.log.write(line)
                self.log.flush()
            script = self.script
            if not script or key not in script.get("routes", {}):
                return route_n, None, False
            resps = script["routes"][key]
            if route_n <= len(resps):
                return route_n, resps[route_n - 1], False
            if script.get("repeat_last") and resps:
                return route_n, resps[-1], False
            return route_n, None, True

    def limit(self, req):
        """None when no rate limit holds the request, else (allowed, headers)."""
        key = req["headers"].get("authorization") or req["headers"].get("x-api-key") or ""
        with self.lock:
            if self.rate is None:
                return None
            ok, remaining, wait = self.rate.take(key)
        extra = rate_limit_headers(req["path"], self.rate.rpm, remaining, wait)
        if not ok:
            extra.append(("Retry-After", str(max(1, int(wait + 0.999)))))
        return ok, extra

    def stats(self):
        with self.lock:
            return {"requests": self.n, "rate_limited": self.rate.limited if self.rate else 0}

    def log_bytes(self):
        with self.lock:
            return b"".join(self.lines)

    def seen(self, key):
        """Whether a request to the route `key` ("METHOD PATH") has been logged."""
        with self.lock:
            return self.route_counts.get(key, 0) > 0


def split_pieces(body, ctype, size):
    """Split a body into the pieces it is sent in: SSE events (each with its blank line),
    NDJSON lines, or `size`-byte chunks for anything else."""
    mt = media_type(ctype)
    if mt == "application/x-ndjson":
        return body.splitlines(keepends=True)
    if mt != "text/event-stream":
        return [body[i:i + size] for i in range(0, len(body), size)]
    pieces, start = [], 0
    for m in re.finditer(rb"\r?\n\r?\n", body):
        pieces.append(body[start:m.end()])
        start = m.end()
    if start < len(body):
        pieces.append(body[start:])  # a last event without its blank line
    return pieces


def cut_pieces(pieces, resp):
    """Apply cut_mid_event and cut_after_bytes; return (pieces left, whether anything was cut)."""
    cut = False
    if resp.get("cut_mid_event"):
        k = resp["cut_mid_event"]
        if k <= len(pieces):
            pieces = pieces[:k - 1] + [pieces[k - 1][:len(pieces[k - 1]) // 2]]
        cut = True
    if "cut_after_bytes" in resp:
        left, kept = resp["cut_after_bytes"], []
        for p in pieces:
            if left <= 0:
                break
            kept.append(p[:left])
            left -= len(kept[-1])
        pieces, cut = kept, True
    return [p for p in pieces if p], cut


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "aicli-mock/1"
    timeout = SOCKET_TIMEOUT

    # -- plumbing ---------------------------------------------------------

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write("mock: %s %s\n" % (self.address_string(), fmt % args))

    def do_GET(self):
        self.dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_GET

    def dispatch(self):
        self.close_connection = True
        try:
            self._dispatch()
        except (BrokenPipeError, ConnectionResetError, TimeoutError, socket.timeout) as e:
            # The client went away or stalled; nothing to answer.
            if self.server.verbose:
                sys.stderr.write("mock: client connection ended: %s\n" % e)

    def read_body(self):
        """The request body, by Content-Length or chunked transfer encoding."""
        te = self.headers.get("Transfer-Encoding", "").lower()
        if "chunked" in te:
            parts, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                if not line.endswith(b"\n"):
                    raise ValueError("bad chunk header")
                size = int(line.split(b";", 1)[0].strip() or b"x", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(parts)
                total += size
                if total > MAX_REQUEST_BODY:
                    raise OverflowError
                data = self.rfile.read(size)
                if len(data) != size:
                    raise ValueError("short chunk")
                parts.append(data)
                self.rfile.readline(1024)  # CRLF after the chunk data
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError("negative Content-Length")
        if length > MAX_REQUEST_BODY:
            raise OverflowError
        data = self.rfile.read(length)
        if len(data) != length:
            raise ValueError("short body")
        return data

    def head(self, status, ctype, length=None, extra=()):
        """The status line and headers as bytes (length None: chunked)."""
        lines = ["HTTP/1.1 %d %s" % (status, REASONS.get(status, "Unknown")),
                 "Date: " + email.utils.formatdate(usegmt=True),
                 "Server: " + self.server_version]
        if ctype:
            lines.append("Content-Type: " + ctype)
        lines.extend("%s: %s" % kv for kv in extra)
        lines.append("Transfer-Encoding: chunked" if length is None else "Content-Length: %d" % length)
        lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def send_simple(self, status, ctype, body):
        self.wfile.write(self.head(status, ctype, len(body)) + body)

    # -- requests -----------------------------------------------------------

    def _dispatch(self):
        path, _, qs = self.path.partition("?")
        try:
            body = self.read_body()
        except OverflowError:
            self.send_simple(413, "application/json", error_json("mock: request body over %d bytes" % MAX_REQUEST_BODY))
            return
        except ValueError as e:
            self.send_simple(400, "application/json", error_json("mock: bad request body: %s" % e))
            return
        if path.startswith("/__mock/"):
            self.control(path, body)
            return

        text = body.decode("utf-8", "replace")
        try:
            doc = json.loads(text) if text.strip() else None
        except ValueError:
            doc = None
        headers = {}
        for name, value in self.headers.items():
            name = name.lower()
            headers[name] = headers[name] + ", " + value if name in headers else value
        req = {"method": self.command, "path": path,
               "query": urllib.parse.parse_qs(qs, keep_blank_values=True),
               "headers": headers, "text": text, "json": doc}

        req["raw"] = body
        route_n, resp, exhausted = self.server.state.record(req)
        key = "%s %s" % (self.command, path)
        if exhausted:
            self.log_message("%s -> script exhausted", key)
            self.send_simple(404, "application/json",
                             error_json("mock: script exhausted for %s (request %d)" % (key, route_n)))
            return
        if resp is None and batch_route(req) is not None:
            self.batch(req, *batch_route(req))
            return
        self.respond(req, resp)

    # -- the batch APIs (OpenAI Batch, Anthropic Message Batches) -------------

    def batch_answer(self, path, body):
        """One batched request through the echo answer logic: (status, answer body object)."""
        fake = {"method": "POST", "path": path, "json": {**body, "stream": False}, "query": {}}
        handler = default_route(fake)
        if handler is None:
            return 404, {"error": {"message": "mock: no route for POST %s" % path}}
        _, _, source = handler(fake)
        text = last_user_text(body)
        for kind, n in ECHO_MARK.findall(text):
            if kind == "status":
                kind = {401: "authentication_error", 429: "rate_limit_error", 529: "overloaded_error"}.get(
                    int(n), "api_error" if int(n) >= 500 else "invalid_request_error")
                return int(n), {"error": {"type": kind,
                                          "message": "mock: status %s asked for by the prompt" % n}}
        return 200, json.loads(echo_body(self.load(source), text))

    def batch(self, req, action, ident, anthropic):
        state = self.server.state
        send = lambda status, doc: self.send_simple(status, "application/json", json.dumps(doc).encode())
        with state.lock:
            polls = (state.script or {}).get("batch_polls", 0)
            if action == "upload":
                data, purpose = multipart_file(req)
                if data is None or purpose != "batch":
                    return send(400, {"error": {"message": "mock: a multipart body with a file and purpose batch is needed"}})
                fid = "file-mock%d" % (len(state.files) + 1)
                state.files[fid] = data
                return send(200, {"id": fid, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                                  "filename": "batch.jsonl", "purpose": "batch"})
            if action == "file":
                if ident not in state.files:
                    return send(404, {"error": {"message": "No such File object: %s" % ident}})
                return self.send_simple(200, "application/octet-stream", state.files[ident])
            if action == "create":
                doc = req["json"] if isinstance(req["json"], dict) else {}
                if anthropic:
                    reqs = [(r.get("custom_id"), req["path"][:-len("/batches")], r.get("params", {}))
                            for r in doc.get("requests", [])]
                else:
                    fid = doc.get("input_file_id")
                    if fid not in state.files or doc.get("completion_window") != "24h":
                        return send(400, {"error": {"message": "mock: no file %s, or a completion_window not 24h" % fid}})
                    lines = [json.loads(l) for l in state.files[fid].decode().splitlines() if l.strip()]
                    prefix = req["path"][:-len("/v1/batches")]
                    reqs = [(l["custom_id"], prefix + l["url"], l["body"]) for l in lines]
                bid = ("msgbatch_mock%d" if anthropic else "batch_mock%d") % (len(state.batches) + 1)
                state.batches[bid] = {"requests": reqs, "polls": 0, "input_file_id": doc.get("input_file_id"),
                                      "endpoint": doc.get("endpoint")}
                return send(200, self.batch_object(bid, state.batches[bid], False, anthropic, req))
            b = state.batches.get(ident)
            if b is None:
                return send(404, {"type": "error", "error": {"type": "not_found_error", "message": "mock: no batch %s" % ident}}
                            if anthropic else {"error": {"message": "No such Batch: %s" % ident}})
            if action == "get":
                b["polls"] += 1
                ended = b["polls"] > polls
                if ended and "results" not in b:
                    b["results"] = [(cid, *self.batch_answer(path, body)) for cid, path, body in b["requests"]]
                    if not anthropic:
                        ok = [r for r in b["results"] if r[1] == 200]
                        bad = [r for r in b["results"] if r[1] != 200]
                        for name, rows in (("output_file_id", ok), ("error_file_id", bad)):
                            if rows:
                                fid = "file-mock%d" % (len(state.files) + 1)
                                state.files[fid] = "".join(json.dumps(
                                    {"id": "batch_req_%s" % cid, "custom_id": cid,
                                     "response": {"status_code": st, "request_id": "req_%s" % cid, "body": ans},
                                     "error": None}) + "\n" for cid, st, ans in rows).encode()
                                b[name] = fid
                return send(200, self.batch_object(ident, b, ended, anthropic, req))
            # Anthropic's results
            if "results" not in b:
                return send(404, {"type": "error", "error": {"type": "not_found_error", "message": "mock: batch %s has not ended" % ident}})
            body = "".join(json.dumps({"custom_id": cid, "result": {"type": "succeeded", "message": ans} if st == 200 else
                                       {"type": "errored", "error": {"type": "error", "error": ans["error"]}}}) + "\n"
                           for cid, st, ans in b["results"])
            return self.send_simple(200, "application/binary", body.encode())

    def batch_object(self, bid, b, ended, anthropic, req):
        n = len(b["requests"])
        bad = sum(1 for r in b.get("results", []) if r[1] != 200)
        if anthropic:
            return {"id": bid, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
                    "request_counts": {"processing": 0 if ended else n, "succeeded": n - bad if ended else 0,
                                       "errored": bad if ended else 0, "canceled": 0, "expired": 0},
                    "ended_at": "2026-01-01T00:00:00Z" if ended else None, "created_at": "2026-01-01T00:00:00Z",
                    "expires_at": "2026-01-02T00:00:00Z", "cancel_initiated_at": None,
                    "results_url": "http://%s/v1/messages/batches/%s/results" % (self.headers.get("Host"), bid) if ended else None}
        status = "completed" if ended else "validating" if b["polls"] == 0 else "in_progress"
        return {"id": bid, "object": "batch", "endpoint": b["endpoint"], "errors": None,
                "input_file_id": b["input_file_id"], "completion_window": "24h", "status": status,
                "output_file_id": b.get("output_file_id"), "error_file_id": b.get("error_file_id"),
                "created_at": 1767225600, "request_counts": {"total": n, "completed": n - bad if ended else 0,
                                                             "failed": bad if ended else 0}, "metadata": None}

    def control(self, path, body):
        state = self.server.state
        if self.command == "POST" and path == "/__mock/script":
            try:
                doc = json.loads(body.decode("utf-8"))
                validate_script(doc, self.server.fixtures)
            except (ValueError, ScriptError) as e:
                self.send_simple(400, "application/json", error_json("mock: bad script: %s" % e))
                return
            with state.lock:
                state.clear(doc)
            self.send_simple(200, "application/json", b'{"ok":true}')
        elif self.command == "POST" and path == "/__mock/reset":
            with state.lock:
                state.clear(None)
            self.send_simple(200, "application/json", b'{"ok":true}')
        elif self.command == "GET" and path == "/__mock/requests":
            self.send_simple(200, "application/x-ndjson", state.log_bytes())
        elif self.command == "GET" and path == "/__mock/stats":
            self.send_simple(200, "application/json", json.dumps(state.stats()).encode())
        elif self.command == "GET" and path == "/__mock/health":
            self.send_simple(200, "text/plain", b"ok")
        else:
            self.send_simple(404, "application/json",
                             error_json("mock: no control endpoint %s %s" % (self.command, path)))

    def load(self, rel):
        with open(os.path.join(self.server.fixtures, rel), "rb") as f:
            return f.read()

    def respond(self, req, resp):
        """Answer a request: `resp` is its scripted RESP object, or None when not scripted."""
        key = "%s %s" % (req["method"], req["path"])
        limited = self.server.state.limit(req)
        if limited is not None and not limited[0]:
            body = json.dumps({"error": {"message": "Rate limit reached for requests",
                                         "type": "requests", "code": "rate_limit_exceeded"}}).encode()
            self.send_with_faults({}, 429, "application/json", body, limited[1])
            return
        resolved = self.resolve(req, resp)
        if resolved is None:
            self.log_message("%s -> no route", key)
            self.send_simple(404, "application/json", error_json("mock: no route for %s" % key))
            return
        status, ctype, body, extra = resolved
        if limited is not None:
            extra = extra + limited[1]
        resp = dict(resp or {})
        if resp.get("echo"):
            text = last_user_text(req["json"])
            for kind, n in ECHO_MARK.findall(text):
                if kind == "delay":
                    resp["delay_ms"] = int(n)
                else:
                    status = int(n)
                    body = error_json("mock: status %s asked for by the prompt" % n)
                    ctype = "application/json"
            if status == 200 and media_type(ctype) == "application/json":
                body = echo_body(body, text)
        self.log_message("%s -> %d %s (%d bytes)", key, status, ctype, len(body))
        self.send_with_faults(resp, status, ctype, body, extra)

    def resolve(self, req, resp):
        """What to send: (status, content type, body, extra headers), or None for "no route"."""
        scripted, resp = resp is not None, resp or {}
        status, ctype, body = resp.get("status", 200), None, b""
        if "file" in resp:
            body, ctype = self.load(resp["file"]), type_for_file(resp["file"])
        elif "body" in resp:
            body, ctype = resp["body"].encode("utf-8"), "text/plain"
        elif "json" in resp:
            body = json.dumps(resp["json"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            ctype = "application/json"
        elif "oversize_bytes" in resp:
            body, ctype = b"x" * resp["oversize_bytes"], "text/plain"
        else:
            handler = default_route(req)
            if handler is None and not scripted:
                return None
            if handler is not None:
                default_status, ctype, source = handler(req)
                if isinstance(source, bytes):
                    body = source
                else:
                    body, ctype = self.load(source), ctype or type_for_file(source)
                if "status" not in resp:
                    status = default_status
            ctype = ctype or "text/plain"
        # Content type: the content_type field, else a Content-Type in headers, else the source's.
        extra = []
        for name, value in resp.get("headers", {}).items():
            if name.lower() == "content-type":
                ctype = value
            else:
                extra.append((name, value))
        return status, resp.get("content_type", ctype), body, extra

    def send_with_faults(self, resp, status, ctype, body, extra):
        """Send a response, applying the RESP's faults in the order README.md gives."""
        if resp.get("delay_ms"):
            time.sleep(resp["delay_ms"] / 1000.0)
        if resp.get("wait_for"):
            # a barrier: answer only once another request has come (proves they overlap)
            deadline = time.monotonic() + WAIT_FOR_SECONDS
            while not self.server.state.seen(resp["wait_for"]) and time.monotonic() < deadline:
                time.sleep(0.01)
            if not self.server.state.seen(resp["wait_for"]):
                self.send_simple(504, "application/json",
                                 error_json("mock: waited %d s for %s" % (WAIT_FOR_SECONDS, resp["wait_for"])))
                return
        if resp.get("reset"):
            self.reset_connection()
            return

        drip = resp.get("drip_ms", 0) / 1000.0
        chunked = resp.get("chunked", bool(drip) or media_type(ctype) in STREAM_TYPES)
        if self.request_version == "HTTP/1.0":
            chunked = False  # an HTTP/1.0 client cannot decode chunks
        chunked = chunked or bool(resp.get("malformed_chunk"))

        pieces = split_pieces(body, ctype, resp.get("drip_bytes", 64) if drip else BIG_CHUNK)
        if "malformed" in resp:
            pieces.insert(1 if pieces else 0, resp["malformed"].encode("utf-8"))
        full_length = sum(len(p) for p in pieces)
        # A cut body is sent without completing its framing: no 0-chunk, or fewer bytes
        # than Content-Length promised; the socket then closes normally (FIN).
        pieces, cut = cut_pieces(pieces, resp)

        self.wfile.write(self.head(status, ctype, None if chunked else full_length, extra))
        for i, piece in enumerate(pieces):
            if i and drip:
                time.sleep(drip)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            if resp.get("malformed_chunk"):
                break
        if resp.get("malformed_chunk"):
            self.wfile.write(b"zz\r\nthis is not a chunk\r\n")
        elif chunked and not cut:
            self.wfile.write(b"0\r\n\r\n")

    def reset_connection(self):
        """Close at once with SO_LINGER 0: the client gets a RST and no response."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()  # drop the makefile reference, or close() below would not close the fd
        self.connection.close()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError) and not self.verbose:
            return
        sys.stderr.write("mock: error handling a request: %s: %s\n" % (type(exc).__name__, exc))


def write_port_file(path, port):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.replace(tmp, path)


def watchdog(state, max_seconds, parent):
    """Exit the whole process on the deadline or when the parent process is gone."""
    deadline = time.monotonic() + max_seconds
    while True:
        time.sleep(min(1.0, max(0.05, deadline - time.monotonic())))
        if time.monotonic() >= deadline:
            reason = "--max-seconds %g reached" % max_seconds
        elif os.getppid() != parent:
            reason = "parent process %d is gone" % parent
        else:
            continue
        with state.lock:
            if state.log:
                state.log.flush()
        try:
            sys.stderr.write("mock: %s, exiting\n" % reason)
            sys.stderr.flush()
        except OSError:
            pass
        os._exit(0)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Loopback mock of the LLM and web search APIs aicli calls.")
    ap.add_argument("--port-file", help="write the listening port here (atomically); default: print it on stdout")
    ap.add_argument("--port", type=int, default=0, help="port to bind on 127.0.0.1 (default 0: any free port)")
    ap.add_argument("--log", help="NDJSON request log file (truncated at start)")
    ap.add_argument("--fixtures", default=os.path.normpath(os.path.join(here, "..", "fixtures")),
                    help="fixtures directory (default: ../fixtures beside mock.py)")
    ap.add_argument("--max-seconds", type=float, default=600, help="exit after this many seconds (default 600)")
    ap.add_argument("--verbose", action="store_true", help="one line per request on stderr")
    ap.add_argument("--rate-limit", type=int, default=0, metavar="RPM",
                    help="answer 429 beyond RPM requests a minute per key (a script may set its own)")
    args = ap.parse_args(argv)

    parent = os.getppid()
    server = Server(("127.0.0.1", args.port), Handler)
    server.verbose = args.verbose
    server.fixtures = args.fixtures
    server.state = State(args.log)
    with server.state.lock:
        server.state.default_rpm = args.rate_limit
        server.state.clear(None)
    threading.Thread(target=watchdog, args=(server.state, args.max_seconds, parent), daemon=True).start()
    port = server.server_address[1]
    if args.port_file:
        write_port_file(args.port_file, port)
    else:
        print(port, flush=True)
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
