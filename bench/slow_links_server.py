"""Serves DIR as a --find-links page (a directory listing with Last-Modified, as web servers
give) on 127.0.0.1, each answer held DELAY seconds first, as a distant server's round trip would
(threaded: concurrent requests wait together). Every request is logged as `METHOD PATH STATUS` to
LOG. Prints `Serving URL` once it listens. Usage: slow_links_server.py DIR DELAY LOG"""
import functools
import http.server
import sys
import time

root, delay, log_path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
log = open(log_path, "a", buffering=1)


class Handler(http.server.SimpleHTTPRequestHandler):
    def send_response(self, code, message=None):
        time.sleep(delay)
        log.write(f"{self.command} {self.path} {code}\n")
        super().send_response(code, message)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 256  # the default 5 drops concurrent connections (a client then waits 1 s)


server = Server(("127.0.0.1", 0), functools.partial(Handler, directory=root))
print(f"Serving http://127.0.0.1:{server.server_address[1]}/", flush=True)
server.serve_forever()
