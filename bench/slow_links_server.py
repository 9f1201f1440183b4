"""Serves DIR as a --find-links page (a directory listing with Last-Modified, as web servers
give) on 127.0.0.1, each answer held DELAY seconds first, as a distant server's round trip would
(threaded: concurrent requests wait together). Every request is logged as `METHOD PATH STATUS` to
LOG; with SENT_LOG=FILE in the environment, each body's bytes actually written (a client may close
the connection early) as `PATH RANGE-HEADER BYTES` to FILE. Like `python3 -m http.server`, it
ignores Range headers (200 and the whole file). Prints `Serving URL` once it listens.
Usage: slow_links_server.py DIR DELAY LOG"""
import functools
import http.server
import os
import sys
import threading
import time

root, delay, log_path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
log = open(log_path, "a", buffering=1)
sent_log = open(os.environ["SENT_LOG"], "a", buffering=1) if os.environ.get("SENT_LOG") else None
sent_lock = threading.Lock()


class Handler(http.server.SimpleHTTPRequestHandler):
    def send_response(self, code, message=None):
        time.sleep(delay)
        log.write(f"{self.command} {self.path} {code}\n")
        super().send_response(code, message)

    def log_message(self, *args):
        pass

    def copyfile(self, source, outputfile):
        sent = 0
        try:
            while chunk := source.read(1 << 16):
                outputfile.write(chunk)
                sent += len(chunk)
        finally:
            if sent_log:
                with sent_lock:
                    sent_log.write(f"{self.path} {self.headers.get('Range') or '-'} {sent}\n")


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 256  # the default 5 drops concurrent connections (a client then waits 1 s)

    def handle_error(self, request, client_address):
        pass  # a client that closed the connection early (it had what it wanted)


server = Server(("127.0.0.1", 0), functools.partial(Handler, directory=root))
print(f"Serving http://127.0.0.1:{server.server_address[1]}/", flush=True)
server.serve_forever()
