"""The resolver reads the metadata of what it will most likely ask for next together (issue 17's
torch-shaped graph over a network, where torch pins a version of each of fifteen CUDA runtimes,
mostly not their newest): a root that pins three libraries, each with a newer version the pin
excludes, on a --find-links page without PEP 658 files, so that each METADATA is read from its
wheel with range requests. No time window: the server holds the first library's read until the
other two have arrived (a guard stops the wait), then lets it go."""
import subprocess
import time

from conftest import _bin
from faultserver import FaultServer
from wheelfactory import make_wheel

PY = "/usr/bin/python3"
LIBS = ("liba", "libb", "libc")


def test_the_metadata_of_pinned_dependencies_is_read_together(vwheel, tmp_path):
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
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "LANG": "C.UTF-8"}
    proc = subprocess.Popen([str(_bin()), "install", "app", "--no-index", "--find-links", server.base + "/",
                             "--python", str(venv / "bin" / "python"), "--cache-dir", str(tmp_path / "dl"), "--timeout", "150"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert hold.arrived.wait(60), "liba's wheel was never read"
        deadline = time.monotonic() + 20  # a guard against waiting forever, not a measurement
        while time.monotonic() < deadline and not all(server.hits(f"/{lib}-1.0-py3-none-any.whl") for lib in LIBS[1:]):
            time.sleep(0.02)
        asked = {lib: len(server.hits(f"/{lib}-1.0-py3-none-any.whl")) for lib in LIBS}
        # While liba's read is held, libb's and libc's have been asked for: not one after another.
        assert proc.poll() is None, "the installer finished while liba's read was held"
        assert asked["libb"] >= 1 and asked["libc"] >= 1, asked
    finally:
        hold.release()
    out, err = proc.communicate(timeout=120)
    server.stop()
    assert proc.returncode == 0, err
    site = next(venv.glob("lib/python3*/site-packages"))
    assert {p.name for p in site.glob("lib*.dist-info")} == {f"{lib}-1.0.dist-info" for lib in LIBS}
    # What the pins exclude is never read, and each pinned wheel is read by ranges, not whole.
    for lib in LIBS:
        assert not server.hits(f"/{lib}-2.0-py3-none-any.whl"), lib
        assert any(r[2] for r in server.hits(f"/{lib}-1.0-py3-none-any.whl")), server.hits(f"/{lib}-1.0-*")
