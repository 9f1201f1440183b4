"""A small threaded HTTP/1.1 server for fault-injection tests: serves a directory (a static simple
index built by `vwheel index build`, or any folder) and misbehaves on chosen paths.

    server = FaultServer(site).start()          # 127.0.0.1, a free port; server.base = "http://127.0.0.1:PORT"
    server.fault("*/torch-2.13.0-*-cu128.whl", "drop", times=2)   # the first 2 GETs fail, then it serves
    ...
    server.requests                              # [(method, path, range header or None, status)], in order
    server.stop()

Fault modes (for `times` requests to a matching path, then served normally; times=None: always):
  drop      headers with the full Content-Length, half the body, then the connection is reset (RST)
  500       `500 Internal Server Error` (a small body; the connection stays usable)
  503       `503 Service Unavailable` with `Retry-After: 0`
  truncate  headers with the full Content-Length, half the body, then a clean close (FIN)
  corrupt   200 with the right length but wrong bytes (every byte of the second half flipped):
            a hash mismatch, not detectable from the headers
  slow      sleeps `delay` seconds (default 30) before answering, then serves normally
  hold      waits until the test calls the fault's release() (or `delay` seconds pass, a guard
            against a hung test), then serves normally; the fault's `arrived` event is set when
            the request comes in: explicit synchronisation, where `slow` is only a time window
  stall     headers and the first half of the body, then sleeps `delay` seconds mid-body, then the rest
  404       `404 Not Found`
  drip      headers, then one byte of the body every `delay` seconds (never a stall, never done)
  pause     headers and the first half of the body, then sets the fault's `arrived` event and waits
            for release() (or `delay` seconds), then the rest: what the client does with half a file

Served normally: GET and HEAD, `Range: bytes=A-B`, `bytes=A-`, `bytes=-N` (206 with Content-Range, 416
beyond the end), ETag and Last-Modified with If-None-Match (304), and PEP 691 content negotiation for
directories: `.../` is answered with `index.json` when the Accept header asks for
`application/vnd.pypi.simple.v1+json` (or `latest+json`) and `index.html` otherwise, as nginx does
with the configuration in the README. Paths never leave the root. A range request to a faulty path
counts as a request and gets the fault applied to the range.

A fault made with `full_only=True` leaves requests with a Range header alone (a download's fault,
not its tail's); one made with `offset_only=True` applies to `bytes=A-B` ranges only (the growth
of a tail, not its first `bytes=-N` request). `FaultServer(root, ranges=False)` ignores Range headers, as a server without range
support does (200 and the whole file); `validators=False` sends neither ETag nor Last-Modified;
`head=False` answers HEAD with 405 Method Not Allowed, as some object stores and proxies do.

Run as a script to serve by hand: `python3 faultserver.py DIR [--port N] [--fault PATTERN=MODE[:TIMES[:DELAY]]]...`
"""
import argparse
import email.utils
import fnmatch
import http.server
import os
import socket
import struct
import threading
import time
import urllib.parse
from pathlib import Path

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
MODES = ("drop", "500", "503", "truncate", "corrupt", "slow", "stall", "404", "hold", "drip", "pause")


class Fault:
    def __init__(self, pattern, mode, times, delay, full_only=False, offset_only=False):
        if mode not in MODES:
            raise ValueError(f"unknown fault mode {mode!r} (one of {', '.join(MODES)})")
        self.pattern = pattern
        self.mode = mode
        self.times = times
        self.delay = delay
        self.full_only = full_only
        self.offset_only = offset_only
        self.hits = 0
        self.arrived = threading.Event()  # hold: a request is waiting
        self.released = threading.Event()  # hold: let it be answered

    def release(self):
        self.released.set()

    def take(self):
        """Whether this request gets the fault (and counts it)."""
        if self.times is not None and self.hits >= self.times:
            return False
        self.hits += 1
        return True


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "faultserver/1"

    def log_message(self, fmt, *args):  # quiet; the tests read server.requests
        pass

    def do_GET(self):
        self._guarded(head=False)

    def do_HEAD(self):
        self._guarded(head=True)

    def _guarded(self, head):
        try:
            self._serve(head)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True  # the client gave up (e.g. timed out on a slow answer)

    # ---- helpers ----

    def _record(self, status):
        if getattr(self, "_recorded", None) is self.requestline:
            return  # a slow answer was recorded when the request came in
        path = urllib.parse.urlsplit(self.path).path
        with self.server.owner.lock:
            self.server.owner.requests.append((self.command, path, self.headers.get("Range"), status))

    def _simple(self, status, body=b"", extra=()):
        self._record(status)
        self.send_response(status)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _resolve(self, urlpath):
        """The file for a URL path, or None; never outside the root."""
        root = self.server.owner.root
        parts = [urllib.parse.unquote(p) for p in urlpath.split("/") if p]
        if any(p in (".", "..") or "/" in p or "\\" in p or "\0" in p or p.startswith(".") for p in parts):
            return None, None
        target = root.joinpath(*parts) if parts else root
        if target.is_dir():
            if not urlpath.endswith("/"):
                return "redirect", urlpath + "/"
            accept = self.headers.get("Accept", "")
            wants_json = "application/vnd.pypi.simple.v1+json" in accept or "application/vnd.pypi.simple.latest+json" in accept
            if wants_json and (target / "index.json").is_file():
                return target / "index.json", JSON_TYPE
            if (target / "index.html").is_file():
                return target / "index.html", "text/html"
            return None, None
        if not target.is_file():
            return None, None
        if target.resolve().is_relative_to(root.resolve()) is False:
            return None, None
        name = target.name
        ctype = ("application/json" if name.endswith(".json") else
                 "text/html" if name.endswith(".html") else "application/octet-stream")
        return target, ctype

    def _fault_for(self, urlpath):
        owner = self.server.owner
        ranged = self.headers.get("Range") is not None
        offset = ranged and not self.headers.get("Range").startswith("bytes=-")
        with owner.lock:
            for f in owner.faults:
                if (f.full_only and ranged) or (f.offset_only and not offset):
                    continue
                if fnmatch.fnmatchcase(urlpath, f.pattern) and f.take():
                    return f
        return None

    def _reset(self):
        """Closes the connection with a TCP RST (SO_LINGER 0)."""
        try:
            self.wfile.flush()
        except OSError:
            pass
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close_connection = True
        try:
            self.connection.close()
        except OSError:
            pass

    def _serve(self, head):
        self._recorded = None
        urlpath = urllib.parse.urlsplit(self.path).path
        path, ctype = self._resolve(urlpath)
        if path == "redirect":
            return self._simple(301, b"", [("Location", ctype)])
        if head and not self.server.owner.head:
            return self._simple(405, b"", [("Allow", "GET")])
        fault = self._fault_for(urlpath)
        mode = fault.mode if fault else None
        if mode == "slow":
            self._record("slow")
            self._recorded = self.requestline
            time.sleep(fault.delay)
        if mode == "hold":
            self._record("hold")
            self._recorded = self.requestline
            fault.arrived.set()
            fault.released.wait(fault.delay)
        if mode in ("500", "503", "404"):
            extra = [("Retry-After", "0")] if mode == "503" else []
            return self._simple(int(mode), f"injected {mode}\n".encode(), extra)
        if path is None:
            return self._simple(404, b"not found\n")
        data = path.read_bytes()
        st = path.stat()
        etag = f'"{st.st_size:x}-{st.st_mtime_ns:x}"'
        validators = self.server.owner.validators
        if validators and self.headers.get("If-None-Match") == etag and mode is None:
            self._record(304)
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        status, start, end = 200, 0, len(data)
        rng = self.headers.get("Range") if self.server.owner.ranges else None
        if rng:
            parsed = _parse_range(rng, len(data))
            if parsed is None:
                return self._simple(416, b"", [("Content-Range", f"bytes */{len(data)}")])
            start, end = parsed
            status = 206
        body = data[start:end]
        if mode == "corrupt":
            half = len(body) // 2
            body = body[:half] + bytes(b ^ 0xFF for b in body[half:])
        self._record(status if mode is None else f"{status} {mode}")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if self.server.owner.ranges:
            self.send_header("Accept-Ranges", "bytes")
        if validators:
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", email.utils.formatdate(st.st_mtime, usegmt=True))
        if ctype == JSON_TYPE or ctype == "text/html":
            self.send_header("Vary", "Accept")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        self.end_headers()
        if head:
            return
        half = len(body) // 2
        try:
            if mode == "drop":
                self.wfile.write(body[:half])
                return self._reset()
            if mode == "truncate":
                self.wfile.write(body[:half])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if mode == "drip":
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(fault.delay)
                return
            if mode == "pause":
                self.wfile.write(body[:half])
                self.wfile.flush()
                fault.arrived.set()
                fault.released.wait(fault.delay)
                self.wfile.write(body[half:])
                return
            if mode == "stall":
                self.wfile.write(body[:half])
                self.wfile.flush()
                time.sleep(fault.delay)
                self.wfile.write(body[half:])
                return
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def _parse_range(header, size):
    """(start, end) for one `bytes=` range, end exclusive; None when unsatisfiable or not understood."""
    unit, _, spec = header.partition("=")
    if unit.strip() != "bytes" or "," in spec:
        return None
    a, sep, b = spec.strip().partition("-")
    if not sep:
        return None
    try:
        if a == "":
            n = int(b)
            if n <= 0:
                return None
            return max(0, size - n), size
        start = int(a)
        end = int(b) + 1 if b else size
    except ValueError:
        return None
    if start >= size or end <= start:
        return None
    return start, min(end, size)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class FaultServer:
    def __init__(self, root, port=0, ranges=True, validators=True, head=True):
        self.root = Path(root)
        self.ranges = ranges
        self.validators = validators
        self.head = head
        self.faults = []
        self.requests = []
        self.lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.owner = self
        self.port = self._httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join(timeout=10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def fault(self, pattern, mode, times=None, delay=30.0, full_only=False, offset_only=False):
        """Applies `mode` to the next `times` requests (None: all) whose URL path matches the fnmatch
        `pattern` (e.g. "*/torch-2.13.0-py3-none-any-cu128.whl", "/simple/torch/"). Returns the Fault
        (its `hits` counts the requests it was applied to)."""
        f = Fault(pattern, mode, times, delay, full_only, offset_only)
        with self.lock:
            self.faults.append(f)
        return f

    def clear(self):
        with self.lock:
            self.faults.clear()
            self.requests.clear()

    def hits(self, pattern, method="GET"):
        """The recorded requests whose path matches `pattern`."""
        with self.lock:
            return [r for r in self.requests if r[0] == method and fnmatch.fnmatchcase(r[1], pattern)]


def main():
    ap = argparse.ArgumentParser(description="Serve DIR over HTTP with injected faults")
    ap.add_argument("root")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--fault", action="append", default=[], metavar="PATTERN=MODE[:TIMES[:DELAY]]")
    args = ap.parse_args()
    server = FaultServer(args.root, args.port)
    for spec in args.fault:
        pattern, _, rest = spec.partition("=")
        mode, _, rest = rest.partition(":")
        times, _, delay = rest.partition(":")
        server.fault(pattern, mode, int(times) if times else None, float(delay) if delay else 30.0)
    print(f"Serving {os.path.abspath(args.root)} on {server.base}/simple/", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
