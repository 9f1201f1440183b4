"""Round trips a resolution over a network does not wait for one after another (issue 17's
torch-shaped graph, where torch pins a version of each of fifteen CUDA runtimes, mostly not their
newest). No time windows: each test holds one side until the other has shown itself (a guard
stops the wait), then lets it go.

- The metadata of what the resolver will most likely ask for next is read together: a root that
  pins three libraries, each with a newer version the pin excludes, on a --find-links page
  without PEP 658 files (each METADATA is read from its wheel with range requests); the server
  holds the first library's read until the other two have arrived.
- The sources are asked while the interpreter is queried: the interpreter (a wrapper) waits until
  the server has seen the find-links page requested."""
import os
import subprocess
import time

import pytest

from conftest import _bin
from faultserver import FaultServer
from wheelfactory import make_wheel

PY = "/usr/bin/python3"
LIBS = ("liba", "libb", "libc")


def one_app_page(tmp_path):
    """A --find-links directory with one wheel and its listing."""
    links = tmp_path / "links"
    links.mkdir()
    name = make_wheel(links, "app-1.0-py3-none-any.whl").name
    (links / "index.html").write_text(f'<a href="{name}">{name}</a>\n')
    return links


def waiting_interpreter(tmp_path, then):
    """An executable that waits until the test creates the returned file (or 20 s pass, a guard
    against a hang), then runs the shell line `then`."""
    let_go = tmp_path / "let-go"
    script = tmp_path / "python"
    script.write_text(f"""#!/bin/sh
i=0
while [ ! -e '{let_go}' ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
{then}
""")
    os.chmod(script, 0o755)
    return script, let_go


def clean_env(tmp_path):
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), "LANG": "C.UTF-8"}


@pytest.mark.parametrize("command", ["install", "lock"])
def test_the_metadata_of_pinned_dependencies_is_read_together(vwheel, tmp_path, command):
    # `lock` makes a universal lock: every fork may follow any requirement, so it reads ahead for all.
    links = tmp_path / "links"
    links.mkdir()
    names = [make_wheel(links, "app-1.0-py3-none-any.whl", requires=[f"{lib}==1.0" for lib in LIBS]).name]
    for lib in LIBS:
        for version in ("1.0", "2.0"):
            names.append(make_wheel(links, f"{lib}-{version}-py3-none-any.whl").name)
    (links / "index.html").write_text("".join(f'<a href="{n}">{n}</a>\n' for n in names))
    venv = tmp_path / "venv"
    assert vwheel("venv", venv, "--python", PY).rc == 0
    server = FaultServer(links).start()
    hold = server.fault("/liba-1.0-py3-none-any.whl", "hold", times=1, delay=120)
    lock = tmp_path / "pylock.toml"
    args = ["--python", str(venv / "bin" / "python")] if command == "install" else ["--python", PY, "-o", str(lock)]
    proc = subprocess.Popen([str(_bin()), command, "app", "--no-index", "--find-links", server.base + "/", *args,
                             "--cache-dir", str(tmp_path / "dl"), "--timeout", "150"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(tmp_path))
    try:
        assert hold.arrived.wait(60), "liba's wheel was never read"
        deadline = time.monotonic() + 20  # a guard against waiting forever, not a measurement
        while time.monotonic() < deadline and not all(server.hits(f"/{lib}-1.0-py3-none-any.whl") for lib in LIBS[1:]):
            time.sleep(0.02)
        asked = {lib: len(server.hits(f"/{lib}-1.0-py3-none-any.whl")) for lib in LIBS}
        # While liba's read is held, libb's and libc's have been asked for: not one after another.
        assert proc.poll() is None, f"{command} finished while liba's read was held"
        assert asked["libb"] >= 1 and asked["libc"] >= 1, asked
    finally:
        hold.release()
    out, err = proc.communicate(timeout=120)
    server.stop()
    assert proc.returncode == 0, err
    if command == "install":
        site = next(venv.glob("lib/python3*/site-packages"))
        assert {p.name for p in site.glob("lib*.dist-info")} == {f"{lib}-1.0.dist-info" for lib in LIBS}
    else:
        text = lock.read_text()
        for lib in LIBS:
            assert f'name = "{lib}"\nversion = "1.0"' in text, text
    # What the pins exclude is never read, and each pinned wheel is read by ranges, not whole.
    for lib in LIBS:
        assert not server.hits(f"/{lib}-2.0-py3-none-any.whl"), lib
        assert any(r[2] for r in server.hits(f"/{lib}-1.0-py3-none-any.whl")), server.hits(f"/{lib}-1.0-*")


def test_the_sources_are_asked_while_the_interpreter_is_queried(vwheel, tmp_path):
    links = one_app_page(tmp_path)
    venv = tmp_path / "venv"
    assert vwheel("venv", venv, "--python", PY).rc == 0
    wrapper, let_go = waiting_interpreter(tmp_path, f"exec '{venv}/bin/python' \"$@\"")
    server = FaultServer(links).start()
    proc = subprocess.Popen([str(_bin()), "install", "app", "--no-index", "--find-links", server.base + "/",
                             "--python", str(wrapper), "--cache-dir", str(tmp_path / "dl")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(tmp_path))
    try:
        deadline = time.monotonic() + 20  # a guard against waiting forever, not a measurement
        while time.monotonic() < deadline and not server.hits("/") and proc.poll() is None:
            time.sleep(0.02)
        asked_first = bool(server.hits("/"))
    finally:
        let_go.touch()
    out, err = proc.communicate(timeout=120)
    server.stop()
    assert proc.returncode == 0, err
    assert asked_first, "the find-links page was asked for only after the interpreter had answered"
    assert next(venv.glob("lib/python3*/site-packages/app-1.0.dist-info"), None), "not installed into the venv"


def test_an_interpreter_that_fails_is_reported_without_waiting_for_the_sources(vwheel, tmp_path):
    # The server holds the find-links page (the head start's request) until the test ends; the
    # interpreter fails its query. The error must come while the page is still held: what was
    # fetched early for nobody is cancelled, not waited for.
    links = one_app_page(tmp_path)
    broken, let_go = waiting_interpreter(tmp_path, "echo 'this interpreter is broken' >&2; exit 3")
    server = FaultServer(links).start()
    hold = server.fault("/", "hold", times=1, delay=120)
    proc = subprocess.Popen([str(_bin()), "install", "app", "--no-index", "--find-links", server.base + "/",
                             "--python", str(broken), "--cache-dir", str(tmp_path / "dl")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(tmp_path))
    try:
        assert hold.arrived.wait(60), "the find-links page was never asked for"
        let_go.touch()
        # Not a measurement: the guard is half the 30 s after which the client itself would give
        # up on the held page (--timeout), so that waiting for it cannot pass.
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise AssertionError("the error waited for the held request") from None
    finally:
        hold.release()
        server.stop()
    assert proc.returncode != 0
    assert str(broken) in err, err
    assert len(err.strip().splitlines()) == 1, err
