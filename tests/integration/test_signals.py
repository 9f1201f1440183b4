"""SIGINT, SIGTERM and SIGHUP during runs that change an environment.

Before the commit point a signal stops the run: exit 128 + the signal, one line saying nothing was
changed, the environment exactly as before, no staging directory and no journal left. During the
commit (held open by the test-only `VWHEEL_TEST_PAUSE_AT_COMMIT=SECONDS`, which waits there until a
signal comes) the signal is deferred: the run completes, then exits with the signal's code."""
import base64
import hashlib
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from wheelfactory import make_wheel
from snapshot import tree as snapshot_tree

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
BIG = 1 << 30  # a zero-filled member this large takes seconds to inflate, hash and write
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}


def record_b64(digest):
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def big_wheel(directory):
    """`vwbig-1.0`: a module and `vwbig/big.bin`, BIG zero bytes (written in chunks, fast deflate)."""
    path = Path(directory) / "vwbig-1.0-py3-none-any.whl"
    chunk = bytes(1 << 20)
    h = hashlib.sha256()
    for _ in range(BIG // len(chunk)):
        h.update(chunk)
    small = {
        "vwbig/__init__.py": b"X = 1\n",
        "vwbig-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: vwbig\nVersion: 1.0\n",
        "vwbig-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [f"vwbig/big.bin,{record_b64(h.digest())},{BIG}"]
    record += [f"{p},{record_b64(hashlib.sha256(d).digest())},{len(d)}" for p, d in small.items()]
    record.append("vwbig-1.0.dist-info/RECORD,,")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        info = zipfile.ZipInfo("vwbig/big.bin", date_time=(2024, 5, 6, 7, 8, 10))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        with zf.open(info, "w", force_zip64=True) as out:
            for _ in range(BIG // len(chunk)):
                out.write(chunk)
        for p, d in small.items():
            zf.writestr(p, d)
        zf.writestr("vwbig-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return path


def leftovers(venv):
    """vwheel's transient names anywhere in the environment (the lock beside pyvenv.cfg is not one)."""
    return [str(p) for p in Path(venv).rglob(".vwheel*") if p != Path(venv) / ".vwheel.lock"]


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    d = tmp_path_factory.mktemp("sigvenv") / "venv"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(d)], check=True)
    return d


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return big_wheel(tmp_path_factory.mktemp("sigwheels"))


def site_packages(venv):
    return next((venv / "lib").glob("python3*/site-packages"))


def start(vwheel_bin, tmp_path, *args, env=None):
    e = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"),
         "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config"), "LANG": "C.UTF-8"}
    e.update(env or {})
    return subprocess.Popen([str(vwheel_bin), *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=e, cwd=tmp_path)


def wait_for(proc, ready, what):
    """Polls until ready() (the state the signal must hit); fails if vwheel exits first."""
    deadline = time.monotonic() + 300  # a generous bound on a busy machine, not a measurement
    while not ready():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"vwheel exited ({proc.returncode}) before {what}: {err}")
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.01)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_signal_during_extraction_changes_nothing(vwheel, vwheel_bin, venv, big, tmp_path, sig):
    py = venv / "bin" / "python"
    assert vwheel("repair", "--python", py).rc == 0  # the lock file exists before the snapshot
    before = tree(venv)
    sp = site_packages(venv)
    proc = start(vwheel_bin, tmp_path, "install", big, "--python", py, "--no-cache", "--max-ratio", "100000",
                 "-j", "2")
    wait_for(proc, lambda: any(sp.glob(".vwheel-tmp-*/*/vwbig/big.bin")), "the member being extracted")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == CODES[sig], (proc.returncode, err)
    assert err.strip().splitlines() == ["vwheel: interrupted; nothing was changed"], err
    assert tree(venv) == before
    assert leftovers(venv) == []
    assert not (venv / ".vwheel-journal").exists()
    if sig == signal.SIGINT:
        # The environment is usable at once: the same install now runs to the end (once: 1 GiB).
        r = vwheel("install", big, "--python", py, "--no-cache", "--max-ratio", "100000")
        assert r.rc == 0, r.err
        assert (sp / "vwbig" / "big.bin").stat().st_size == BIG
        assert vwheel("uninstall", "vwbig", "--python", py).rc == 0
        assert tree(venv) == before


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_signal_during_commit_is_deferred_and_the_run_completes(vwheel, vwheel_bin, venv, tmp_path, sig):
    py = venv / "bin" / "python"
    sp = site_packages(venv)
    w = make_wheel(tmp_path, "vwcommit-1.0-py3-none-any.whl", {"vwcommit/__init__.py": b"X = 1\n"})
    proc = start(vwheel_bin, tmp_path, "install", w, "--python", py, env={"VWHEEL_TEST_PAUSE_AT_COMMIT": "300"})
    # The journal exists and the package is moved in: the run is inside its commit phase.
    wait_for(proc, lambda: (venv / ".vwheel-journal").exists() and (sp / "vwcommit-1.0.dist-info").exists(),
             "the commit phase")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == CODES[sig], (proc.returncode, err)
    assert f"interrupted by {sig.name} during the commit; the run completed" in err, err
    assert (sp / "vwcommit" / "__init__.py").read_bytes() == b"X = 1\n"
    assert leftovers(venv) == []
    assert not (venv / ".vwheel-journal").exists()
    listed = vwheel("list", "--python", py)
    assert "vwcommit" in listed.out, listed.out

    # The same for an uninstall of it (and a second project, in the same transaction).
    w2 = make_wheel(tmp_path, "vwcommit2-1.0-py3-none-any.whl", {"vwcommit2/__init__.py": b"X = 2\n"})
    assert vwheel("install", w2, "--python", py).rc == 0
    proc = start(vwheel_bin, tmp_path, "uninstall", "vwcommit", "vwcommit2", "--python", py,
                 env={"VWHEEL_TEST_PAUSE_AT_COMMIT": "300"})
    wait_for(proc, lambda: (venv / ".vwheel-journal").exists() and not (sp / "vwcommit-1.0.dist-info").exists()
             and not (sp / "vwcommit2-1.0.dist-info").exists(), "the uninstall's commit phase")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == CODES[sig], (proc.returncode, err)
    assert "the run completed" in err, err
    assert not (sp / "vwcommit").exists() and not (sp / "vwcommit2").exists()
    assert leftovers(venv) == []
    assert not (venv / ".vwheel-journal").exists()


def test_signal_before_any_change_exits_at_once(vwheel, vwheel_bin, venv, tmp_path):
    """Waiting for the environment lock (held here by another process): nothing is touched yet."""
    py = venv / "bin" / "python"
    assert vwheel("repair", "--python", py).rc == 0
    before = tree(venv)
    w = make_wheel(tmp_path, "vwwait-1.0-py3-none-any.whl", {"vwwait/__init__.py": b""})
    holder = subprocess.Popen([PY, "-c", "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\n"
                               "fcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(600)",
                               str(venv / ".vwheel.lock")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        proc = start(vwheel_bin, tmp_path, "install", w, "--python", py)
        # vwheel says that it waits for the lock once it does.
        lines = []
        wait_for(proc, lambda: lines.append(proc.stderr.readline()) or "lock" in lines[-1], "the lock wait")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 143, (proc.returncode, err)
        assert "vwheel: interrupted; nothing was changed" in err, err
    finally:
        holder.kill()
        holder.wait()
    assert tree(venv) == before
    assert leftovers(venv) == []


def tree(root):
    """Everything, the run lock and compiled modules included."""
    return snapshot_tree(root, skip=())
