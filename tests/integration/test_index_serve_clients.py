"""`vwheel index serve` against slow and greedy clients, over raw sockets: header and body deadlines
(slowloris, silent clients), connection caps per IP and in all, keep-alive limits, pipelining, and
a stop that does not wait for them."""
import socket
import time

from served import raw, raw_status, serve, wait_closed  # noqa: F401 (serve: a fixture)


# ---- slow and greedy clients (short deadlines set on the command line; the waits below are
# failsafes, the assertions are on what the server sent and when it closed) ----

def _site(tmp_path):
    site = tmp_path / "site"
    (site / "simple/pkg").mkdir(parents=True)
    (site / "simple/index.html").write_text("<!DOCTYPE html><a href='pkg/'>pkg</a>\n")
    (site / "simple/pkg/index.html").write_text("<!DOCTYPE html>pkg\n")
    return site


def read_response(sock, buffered=b""):
    """One HTTP/1.1 response with a Content-Length from `sock`: (status, headers, body, rest)."""
    data = buffered
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"the connection closed within the headers: {data!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError("the connection closed within the body")
        rest += chunk
    return status, headers, rest[:length], rest[length:]


class Trickler:
    """Clients that send a request's headers one byte every 0.1 s and reconnect when cut off."""

    def __init__(self, port, count):
        import threading
        self.port, self.stop, self.cut_off = port, threading.Event(), 0
        self.threads = [threading.Thread(target=self.run, daemon=True) for _ in range(count)]
        for t in self.threads:
            t.start()

    def run(self):
        while not self.stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                    s.sendall(b"GET /simple/ HTTP/1.1\r\nHost: x\r\n")
                    while not self.stop.wait(0.1):
                        s.sendall(b"X")
            except OSError:
                self.cut_off += 1  # closed by the server (or refused while it was busy)

    def close(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=10)


def test_slow_clients_do_not_starve_a_normal_request(serve, tmp_path):
    s = serve("--threads", "2", "--header-timeout", "1", "--max-connections-per-ip", "0", _site(tmp_path))
    slow = Trickler(s.port, 6)  # three times as many as there are workers, reconnecting when cut off
    try:
        time.sleep(0.5)  # not a bound: lets the slow clients take the workers first
        with socket.create_connection(("127.0.0.1", s.port), timeout=60) as c:
            c.sendall(b"GET /simple/pkg/ HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\n\r\n")
            status, _, body, _ = read_response(c)
        assert status == 200 and body == b"<!DOCTYPE html>pkg\n"
        for _ in range(600):  # failsafe: the slow clients notice being cut off within a send or two
            if slow.cut_off > 0:
                break
            time.sleep(0.1)
    finally:
        slow.close()
    assert slow.cut_off > 0


def test_a_slowloris_client_is_cut_off_at_the_header_deadline(serve, tmp_path):
    s = serve("--header-timeout", "1", _site(tmp_path))
    with socket.create_connection(("127.0.0.1", s.port), timeout=30) as c:
        c.sendall(b"GET /simple/ HTTP/1.1\r\nHost: x\r\n")
        sent = 0
        c.setblocking(False)
        closed = False
        for _ in range(600):  # failsafe: 60 s of one byte every 0.1 s
            try:
                c.sendall(b"X")
                sent += 1
            except (BrokenPipeError, ConnectionResetError, BlockingIOError):
                closed = True
                break
            try:
                chunk = c.recv(65536)
                if not chunk:
                    closed = True
                    break
                # The server may answer 400 before it closes: read on to the end.
                c.setblocking(True)
                rest = wait_closed(c, 30)
                assert raw_status(chunk + rest) == 400, chunk + rest
                closed = True
                break
            except BlockingIOError:
                pass
            except ConnectionResetError:
                closed = True
                break
            time.sleep(0.1)
        assert closed, "the server kept the connection open"
        assert sent > 0  # it did trickle before being cut off
    # The server still answers.
    assert raw_status(raw(s.port, b"GET /simple/ HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n"
                                  b"Connection: close\r\n\r\n")) == 200


def test_a_silent_client_is_cut_off_at_the_header_deadline_and_frees_its_slot(serve, tmp_path):
    # A connection that sends nothing at all is a slow-loris too: the header deadline counts from
    # the accept, however long the keep-alive timeout, and its per-address slot goes to the next.
    s = serve("--header-timeout", "1", "--keep-alive-timeout", "600", "--threads", "2",
              "--max-connections-per-ip", "1", _site(tmp_path))
    with socket.create_connection(("127.0.0.1", s.port), timeout=60) as silent:
        silent.sendall(b"")
        assert wait_closed(silent, 30) == b""  # closed by the server, not by the failsafe
    with socket.create_connection(("127.0.0.1", s.port), timeout=60) as silent, \
            socket.create_connection(("127.0.0.1", s.port), timeout=60) as c:
        c.sendall(b"GET /simple/pkg/ HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n")
        # Whichever took the address's one slot first, `c` is answered: at once, or once the
        # silent one is cut off.
        assert read_response(c)[0] == 200


def test_pipelined_requests_are_answered_in_order(serve, tmp_path):
    s = serve(_site(tmp_path))
    with socket.create_connection(("127.0.0.1", s.port), timeout=30) as c:
        c.sendall(b"GET /simple/ HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n"
                  b"GET /simple/pkg/ HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n"
                  b"GET /missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        first = read_response(c)
        second = read_response(c, first[3])
        third = read_response(c, second[3])
        assert (first[0], first[2]) == (200, b"<!DOCTYPE html><a href='pkg/'>pkg</a>\n")
        assert first[1].get("connection") != "close"
        assert (second[0], second[2]) == (200, b"<!DOCTYPE html>pkg\n")
        assert third[0] == 404 and third[1]["connection"] == "close"
        assert third[3] == b"" and wait_closed(c, 30) == b""


def test_keep_alive_requests_are_capped(serve, tmp_path):
    s = serve("--keep-alive-requests", "2", _site(tmp_path))
    with socket.create_connection(("127.0.0.1", s.port), timeout=30) as c:
        request = b"GET /simple/pkg/ HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n"
        c.sendall(request)
        status, headers, _, rest = read_response(c)
        assert status == 200 and headers.get("connection") != "close"
        c.sendall(request)
        status, headers, _, rest = read_response(c, rest)
        assert status == 200 and headers["connection"] == "close"
        assert rest == b"" and wait_closed(c, 30) == b""


def test_connections_per_ip_are_capped(serve, tmp_path):
    s = serve("--threads", "4", "--max-connections-per-ip", "1", "--max-waiting-per-ip", "1",
              "--header-timeout", "60", "--keep-alive-timeout", "60", _site(tmp_path))
    request = b"GET /simple/pkg/ HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n"
    a = socket.create_connection(("127.0.0.1", s.port), timeout=60)
    a.sendall(request + b"\r\n")
    status, _, _, rest = read_response(a)  # `a` is being served: it holds this address's one slot
    assert status == 200 and rest == b""
    a.sendall(request)  # a second request, headers not finished: `a` keeps the slot
    b = socket.create_connection(("127.0.0.1", s.port), timeout=60)
    c = socket.create_connection(("127.0.0.1", s.port), timeout=60)
    b.sendall(request + b"Connection: close\r\n\r\n")
    c.sendall(request + b"Connection: close\r\n\r\n")
    # One of them waits for the slot; the other is refused at once.
    import select
    ready, _, _ = select.select([b, c], [], [], 60)
    assert len(ready) == 1, "exactly one extra connection is refused"
    refused, waiting = (b, c) if ready[0] is b else (c, b)
    answer = wait_closed(refused, 30)
    assert raw_status(answer) == 503, answer
    head = answer.split(b"\r\n\r\n")[0].lower()
    assert b"\r\nconnection: close" in head and b"\r\nretry-after: 1" in head
    assert b"too many connections from 127.0.0.1" in answer
    # `a` ends; the waiting connection is served next.
    a.sendall(b"Connection: close\r\n\r\n")
    assert read_response(a)[0] == 200
    a.close()
    status, _, body, _ = read_response(waiting)
    assert status == 200 and body == b"<!DOCTYPE html>pkg\n"
    b.close()
    c.close()


def test_stop_does_not_wait_for_a_half_sent_request(serve, tmp_path):
    s = serve("--header-timeout", "600", "--body-timeout", "600", _site(tmp_path))
    with socket.create_connection(("127.0.0.1", s.port), timeout=30) as c:
        c.sendall(b"GET /simple/ HTTP/1.1\r\nHost: x\r\n")  # never finished
        time.sleep(0.5)  # not a bound: lets a worker take the connection
        assert s.stop() == 0  # within the 20 s failsafe of stop(), not the 600 s deadlines
        assert wait_closed(c, 30) == b""


def test_an_idle_connection_gives_way_to_a_waiting_one(serve, tmp_path):
    s = serve("--threads", "2", "--max-connections-per-ip", "1", "--keep-alive-timeout", "600", _site(tmp_path))
    request = b"GET /simple/pkg/ HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n"
    with socket.create_connection(("127.0.0.1", s.port), timeout=60) as a:
        a.sendall(request)
        assert read_response(a)[0] == 200  # `a` holds the address's one slot, idle from now on
        # `b` connects only now: connected together, either could take the slot first.
        b = socket.create_connection(("127.0.0.1", s.port), timeout=60)
        b.sendall(request)
        # Far within the 600 s keep-alive: `a` is closed so that `b` is served.
        status, _, body, _ = read_response(b)
        assert status == 200 and body == b"<!DOCTYPE html>pkg\n"
        assert wait_closed(a, 30) == b""
        b.close()
