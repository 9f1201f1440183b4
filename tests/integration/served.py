"""`vwheel index serve` run for a test: started on a free port of 127.0.0.1, ready once it printed its
`Serving SITE on URL` line, stopped with SIGTERM (killed if it does not stop)."""
import os
import re
import select
import signal
import socket
import subprocess

import pytest

from conftest import _bin


def clean_env(tmp_path, **extra):
    """An environment without the host's configuration or cache: HOME and XDG folders under tmp_path."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "LANG": "C.UTF-8"}
    env.update(extra)
    return env


class Served:
    def __init__(self, proc, line, port, log, scheme="http"):
        self.proc, self.line, self.port, self.log = proc, line, port, log
        self.base = f"{scheme}://127.0.0.1:{port}"
        self.index_url = self.base + "/simple/"

    def stop(self, sig=signal.SIGTERM):
        """Signals the server (SIGTERM unless said otherwise) and returns its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def start_serve(workdir, *args, env=None, log_name="serve.log"):
    """`vwheel index serve --port 0 --verbose ARGS...`; its stderr (one line per request) goes to
    workdir/log_name."""
    log = workdir / log_name
    proc = subprocess.Popen([str(_bin()), "index", "serve", "--port", "0", "--verbose", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=open(log, "w"), text=True,
                            env=env or clean_env(workdir), cwd=workdir)
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    line = proc.stdout.readline() if ready else ""
    m = re.fullmatch(r"Serving (.+) on (https?)://127\.0\.0\.1:(\d+)/simple/\n", line)
    if not m:
        proc.kill()
        proc.wait()
        pytest.fail(f"no `Serving ...` line: {line!r}; stderr: {log.read_text()}")
    return Served(proc, line, int(m.group(3)), log, m.group(2))


@pytest.fixture
def serve(tmp_path):
    """serve(*args): starts `vwheel index serve` (start_serve) as often as a test asks; all are
    killed at its end."""
    if not _bin().exists():
        pytest.fail(f"vwheel binary not found at {_bin()}; build it first")
    started = []

    def start(*args, env=None):
        served = start_serve(tmp_path, *args, env=env, log_name=f"serve-{len(started)}.log")
        started.append(served)
        return served

    yield start
    for s in started:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def raw(port, data, timeout=10):
    """Sends bytes as they are; returns what comes back until the server closes or stops talking."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered before it read everything
        out = b""
        s.settimeout(2)
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    return out


def raw_status(response):
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", response)
    return int(m.group(1)) if m else None


def wait_closed(sock, failsafe):
    """Reads until the server closes the connection; returns what it sent. Fails after `failsafe` s."""
    sock.settimeout(failsafe)
    out = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return out
        except socket.timeout:
            raise AssertionError(f"the server did not close the connection within {failsafe} s; got {out!r}")
        if not chunk:
            return out
        out += chunk
