"""`vwheel index serve` run for a test: started on a free port of 127.0.0.1, ready once it printed its
`Serving SITE on URL` line, stopped with SIGTERM (killed if it does not stop)."""
import os
import re
import select
import signal
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
    def __init__(self, proc, line, port, log):
        self.proc, self.line, self.port, self.log = proc, line, port, log
        self.base = f"http://127.0.0.1:{port}"
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
    m = re.fullmatch(r"Serving (.+) on http://127\.0\.0\.1:(\d+)/simple/\n", line)
    if not m:
        proc.kill()
        proc.wait()
        pytest.fail(f"no `Serving ...` line: {line!r}; stderr: {log.read_text()}")
    return Served(proc, line, int(m.group(2)), log)
