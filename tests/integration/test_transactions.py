"""Runs that change an environment are all-or-nothing: type conflicts refused before anything moves,
one transaction per run, and recovery (by the next run or `vwheel repair`) after a kill -9 at every
journaled step of an upgrade and of an uninstall.

The kill points use the test-only `VWHEEL_TEST_CRASH_AFTER=N` (the process SIGKILLs itself after N
journal writes and journaled renames) and `VWHEEL_TEST_FAIL_AT_MOVE=N` (the N-th move into place fails)."""
import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wheelfactory import make_wheel
from snapshot import tree

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """One venv with pip for the module; every test leaves it as it found it."""
    d = tmp_path_factory.mktemp("txvenv") / "venv"
    subprocess.run([PY, "-m", "venv", str(d)], check=True)
    return d


def pip(venv, *args):
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1")
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pip", *args], capture_output=True, text=True, env=env)


def site_packages(venv):
    return next((venv / "lib").glob("python3*/site-packages"))


def leftovers(venv):
    """vwheel's transient names anywhere in the environment (the lock file beside pyvenv.cfg is not one)."""
    return [str(p) for p in Path(venv).rglob(".vwheel*") if p != Path(venv) / ".vwheel.lock"]


def tx_wheel(directory, version):
    """`vwtx`: a few modules (one only in 1.0, one only in 2.0), a script, an entry point, a data file."""
    files = {
        "vwtx/__init__.py": f"VERSION = '{version}'\n".encode(),
        "vwtx/core.py": f"CORE = '{version}'\n".encode(),
        "vwtx/sub/__init__.py": b"",
        "vwtx/sub/deep.py": f"DEEP = '{version}'\n".encode(),
        "vwtx/sub/more1.py": b"M = 1\n",
        "vwtx/sub/more2.py": b"M = 2\n",
        "vwtx/sub/more3.py": b"M = 3\n",
        "vwtx/sub/more4.py": b"M = 4\n",
        f"vwtx-{version}.data/data/share/vwtx/notes.txt": f"notes {version}\n".encode(),
        f"vwtx-{version}.dist-info/entry_points.txt": b"[console_scripts]\nvwtx-cli = vwtx:main\n",
    }
    files["vwtx/only_old.py" if version == "1.0" else "vwtx/only_new.py"] = b"X = 1\n"
    return make_wheel(directory, f"vwtx-{version}-py3-none-any.whl", files,
                      scripts={"vwtx-raw": f"#!python\nprint('{version}')\n".encode()})


def record_b64(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def installed_state(venv, name="vwtx"):
    """None when the project is fully absent, else its version after checking that exactly one
    dist-info exists and every RECORD file is present with its hash; fails on anything half-there."""
    sp = site_packages(venv)
    infos = sorted(sp.glob(f"{name}-*.dist-info"))
    if not infos:
        assert not (sp / name).exists(), f"{name} has no dist-info but {sp / name} is left: {sorted((sp / name).rglob('*'))}"
        assert not (venv / "bin" / f"{name}-cli").exists() and not (venv / "bin" / f"{name}-raw").exists()
        assert not (venv / "share" / name / "notes.txt").exists()
        return None
    assert len(infos) == 1, infos
    version = infos[0].name[len(name) + 1:-len(".dist-info")]
    for line in (infos[0] / "RECORD").read_text().splitlines():
        path, digest, _ = line.rsplit(",", 2)
        f = (sp / path).resolve()
        assert f.exists(), f"{name} {version}: {path} is missing"
        if digest:
            assert record_b64(f.read_bytes()) == digest, f"{name} {version}: {path} has the wrong hash"
    other = "only_old.py" if version == "2.0" else "only_new.py"
    assert not (sp / name / other).exists(), f"{name} {version}: the other version's {other} is left"
    return version


def check_clean(venv, expected_versions):
    assert leftovers(venv) == []
    v = installed_state(venv)
    assert v in expected_versions, v
    # What `pip list` shows (importlib.metadata, as pip reads it, in a fraction of pip's start-up).
    shown = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import importlib.metadata as m\ntry: print(m.version('vwtx'))\nexcept m.PackageNotFoundError: print('-')"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert shown == (v or "-"), shown
    check = pip(venv, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    return v


def crash_points(vwheel, venv, args, reset, expected_versions, label):
    """Kills `vwheel *args` after each journal write in turn (until it runs to the end), recovering
    with `vwheel repair` or with the next vwheel run (alternately). Returns the number of kill points."""
    n = 0
    while True:
        reset()
        before = installed_state(venv)
        r = vwheel(*args, "--python", venv / "bin" / "python", env={"VWHEEL_TEST_CRASH_AFTER": str(n)})
        if r.rc == 0:
            check_clean(venv, expected_versions)
            return n
        assert r.rc == -9, f"{label}: kill point {n}: rc {r.rc}: {r.err}"
        if n % 2 == 0:
            fix = vwheel("repair", "--python", venv / "bin" / "python")
            assert fix.rc == 0, fix.err
        else:
            # The next run of any kind recovers first (this one then fails: nothing by that name).
            fix = vwheel("uninstall", "vwtx-not-installed", "--python", venv / "bin" / "python")
            assert "not installed" in fix.err, fix.err
        v = check_clean(venv, expected_versions)
        assert v in (before, expected_versions[-1]), f"{label}: kill point {n}: {before} -> {v}"
        n += 1
        assert n < 500, "no end to the kill points"


def test_kill_at_every_step_of_an_upgrade_and_an_uninstall(vwheel, venv, tmp_path):
    old = tx_wheel(tmp_path, "1.0")
    new = tx_wheel(tmp_path, "2.0")
    py = venv / "bin" / "python"

    def to_old():
        if installed_state(venv) != "1.0":
            assert vwheel("install", old, "--python", py).rc == 0

    points = crash_points(vwheel, venv, ("install", new), to_old, ("1.0", "2.0"), "upgrade")
    assert points >= 20, points
    assert installed_state(venv) == "2.0"
    # Fewer steps than the upgrade's: the package directory goes aside whole, in one step.
    points = crash_points(vwheel, venv, ("uninstall", "vwtx"), to_old, ("1.0", None), "uninstall")
    assert points >= 12, points
    assert installed_state(venv) is None


def test_uninstall_of_several_names_is_one_transaction(vwheel, venv, tmp_path):
    old = tx_wheel(tmp_path, "1.0")
    other = make_wheel(tmp_path, "vwpeer-1.0-py3-none-any.whl", {"vwpeer/__init__.py": b"", "vwpeer/a.py": b"A = 1\n"})
    py = venv / "bin" / "python"
    sp = site_packages(venv)

    def both():
        for w, name in ((old, "vwtx"), (other, "vwpeer")):
            if not (sp / f"{name}-1.0.dist-info").exists():
                assert vwheel("install", w, "--python", py).rc == 0

    # An unknown name fails the whole run before anything is removed (pip would skip it).
    both()
    before = tree(venv)
    r = vwheel("uninstall", "vwtx", "vwpeer", "vw-nowhere", "--python", py)
    assert r.rc == 1, r.err
    assert r.err.strip().splitlines() == [f"vwheel: error: vw-nowhere: not installed in {sp} (nothing was uninstalled)"], r.err
    assert tree(venv) == before
    assert leftovers(venv) == []

    # Killed at every third crash point: after recovery both are there, or neither is.
    n = 0
    while True:
        both()
        r = vwheel("uninstall", "vwtx", "vwpeer", "--python", py, env={"VWHEEL_TEST_CRASH_AFTER": str(n)})
        if r.rc == 0:
            assert r.out.splitlines() == ["uninstalled vwtx 1.0 (13 files)", "uninstalled vwpeer 1.0 (3 files)"], r.out
            assert check_clean(venv, (None,)) is None
            assert not (sp / "vwpeer").exists()
            break
        assert r.rc == -9, f"kill point {n}: rc {r.rc}: {r.err}"
        fix = vwheel("repair", "--python", py)
        assert fix.rc == 0, fix.err
        v = check_clean(venv, ("1.0", None))
        peer = (sp / "vwpeer-1.0.dist-info").exists()
        assert peer == (v == "1.0"), f"kill point {n}: vwtx {v}, vwpeer {'present' if peer else 'absent'}"
        assert peer == (sp / "vwpeer" / "a.py").exists()
        n += 3
        assert n < 500, "no end to the kill points"
    assert n >= 9, n


def test_file_where_the_environment_has_a_directory_is_refused(vwheel, venv, tmp_path):
    before = tree(venv)
    w = make_wheel(tmp_path, "vwbin-1.0-py3-none-any.whl", {"vwbin-1.0.data/data/bin": b"not a directory\n"})
    r = vwheel("install", w, "--python", venv / "bin" / "python")
    assert r.rc == 1, r.err
    assert "member `vwbin-1.0.data/data/bin`" in r.err and f"`{venv / 'bin'}`" in r.err, r.err
    assert tree(venv) == before

    w = make_wheel(tmp_path, "vwevil-1.0-py3-none-any.whl", {"pip": b"not pip\n"})
    r = vwheel("install", w, "--python", venv / "bin" / "python")
    assert r.rc == 1, r.err
    assert "member `pip`" in r.err and f"`{site_packages(venv) / 'pip'}`" in r.err, r.err
    assert tree(venv) == before
    assert pip(venv, "--version").returncode == 0


def test_directory_where_the_environment_has_a_file_is_refused(vwheel, venv, tmp_path):
    before = tree(venv)
    w = make_wheel(tmp_path, "vwcfg-1.0-py3-none-any.whl", {"vwcfg-1.0.data/data/pyvenv.cfg/x": b"x\n"})
    r = vwheel("install", w, "--python", venv / "bin" / "python")
    assert r.rc == 1, r.err
    assert "member `vwcfg-1.0.data/data/pyvenv.cfg/x`" in r.err and f"`{venv / 'pyvenv.cfg'}`" in r.err, r.err
    assert tree(venv) == before


def test_own_previous_file_may_become_a_directory(vwheel, venv, tmp_path):
    py = venv / "bin" / "python"
    a = make_wheel(tmp_path, "vwshape-1.0-py3-none-any.whl", {"vwshape/__init__.py": b"", "vwshape/thing": b"file\n"})
    (tmp_path / "v2").mkdir()
    b = make_wheel(tmp_path / "v2", "vwshape-2.0-py3-none-any.whl",
                   {"vwshape/__init__.py": b"", "vwshape/thing/__init__.py": b"X = 2\n"})
    assert vwheel("install", a, "--python", py).rc == 0
    r = vwheel("install", b, "--python", py)
    assert r.rc == 0, r.err
    assert (site_packages(venv) / "vwshape" / "thing" / "__init__.py").read_bytes() == b"X = 2\n"
    r = vwheel("install", a, "--python", py)  # and back
    assert r.rc == 0, r.err
    assert (site_packages(venv) / "vwshape" / "thing").read_bytes() == b"file\n"
    assert vwheel("uninstall", "vwshape", "--python", py).rc == 0
    assert leftovers(venv) == []


def test_two_wheels_commit_together(vwheel, venv, tmp_path):
    py = venv / "bin" / "python"
    a = make_wheel(tmp_path, "vwfirst-1.0-py3-none-any.whl", {"vwfirst/__init__.py": b""})
    b = make_wheel(tmp_path, "vwsecond-1.0-py3-none-any.whl", {"vwsecond/__init__.py": b"", "vwsecond/more.py": b""})
    before = tree(venv)
    # Moves 0 and 1 put vwfirst's package and dist-info in place; move 2 is vwsecond's first.
    r = vwheel("install", a, b, "--python", py, env={"VWHEEL_TEST_FAIL_AT_MOVE": "2"})
    assert r.rc != 0 and "injected failure" in r.err, r.err
    assert tree(venv) == before
    assert leftovers(venv) == []
    # Killed after the first wheel is in place (crash points: the journal's creation, the four
    # journaled moves of both wheels, which share one sync, then vwfirst's two renames): the next
    # run takes it out again.
    r = vwheel("install", a, b, "--python", py, env={"VWHEEL_TEST_CRASH_AFTER": "7"})
    assert r.rc == -9, r.err
    assert (site_packages(venv) / "vwfirst-1.0.dist-info").exists()
    assert not (site_packages(venv) / "vwsecond").exists()
    assert vwheel("repair", "--python", py).rc == 0
    assert tree(venv) == before
    r = vwheel("install", a, b, "--python", py)
    assert r.rc == 0, r.err
    for name in ("vwfirst", "vwsecond"):
        assert vwheel("uninstall", name, "--python", py).rc == 0
    assert tree(venv) == before


def test_lock_and_journal_outside_site_packages(vwheel, venv, tmp_path):
    py = venv / "bin" / "python"
    w = make_wheel(tmp_path, "vwlock-1.0-py3-none-any.whl", {"vwlock/__init__.py": b""})
    assert vwheel("install", w, "--python", py).rc == 0
    assert (venv / ".vwheel.lock").exists()
    assert list(site_packages(venv).glob(".vwheel*")) == []
    assert vwheel("uninstall", "vwlock", "--python", py).rc == 0
    assert list(site_packages(venv).glob(".vwheel*")) == []
    r = vwheel("repair", "--python", py)
    assert r.rc == 0 and "no interrupted run" in r.out, r.out + r.err


@pytest.mark.parametrize("member", [".vwheel.lock", "vwres/.vwheel-tmp-1/x.py", "vwres-1.0.data/data/.vwheel-journal"])
def test_reserved_names_are_refused(vwheel, venv, tmp_path, member):
    before = tree(venv)
    w = make_wheel(tmp_path, "vwres-1.0-py3-none-any.whl", {"vwres/__init__.py": b"", member: b"x\n"})
    r = vwheel("install", w, "--python", venv / "bin" / "python")
    assert r.rc == 1, r.err
    assert f"member `{member}`" in r.err and "reserves" in r.err, r.err
    assert tree(venv) == before


def test_corrupt_journal_stops_the_run_and_names_it(vwheel, venv, tmp_path):
    py = venv / "bin" / "python"
    journal = venv / ".vwheel-journal"
    journal.write_text("not a journal\n")
    try:
        w = make_wheel(tmp_path, "vwj-1.0-py3-none-any.whl", {"vwj/__init__.py": b""})
        before = tree(venv)
        r = vwheel("install", w, "--python", py)
        assert r.rc == 3, r.err
        assert str(journal) in r.err and "line 1" in r.err, r.err
        assert tree(venv) == before
        assert vwheel("repair", "--python", py).rc == 3
    finally:
        journal.unlink()


def test_wheel_version_minor_warns_major_refused(vwheel, venv, tmp_path):
    import zipfile
    py = venv / "bin" / "python"

    def with_wheel_version(version, name):
        src = make_wheel(tmp_path, f"{name}-1.0-py3-none-any.whl", {f"{name}/__init__.py": b""})
        out = tmp_path / "v" / src.name
        out.parent.mkdir(exist_ok=True)
        text = f"Wheel-Version: {version}\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n".encode()
        with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w") as zout:
            for info in zin.infolist():
                data = zin.read(info)
                if info.filename.endswith(".dist-info/WHEEL"):
                    data = text
                elif info.filename.endswith(".dist-info/RECORD"):
                    lines = []
                    for line in data.decode().splitlines():
                        if line.split(",")[0].endswith("/WHEEL"):
                            line = f"{name}-1.0.dist-info/WHEEL,{record_b64(text)},{len(text)}"
                        lines.append(line)
                    data = ("\n".join(lines) + "\n").encode()
                zout.writestr(info, data)
        return out

    r = vwheel("install", with_wheel_version("1.1", "vwminor"), "--python", py)
    assert r.rc == 0, r.err
    assert "Wheel-Version: 1.1" in r.err and "warning" in r.err.lower(), r.err
    assert vwheel("uninstall", "vwminor", "--python", py).rc == 0
    r = vwheel("install", with_wheel_version("2.0", "vwmajor"), "--python", py)
    assert r.rc == 1 and "Wheel-Version: 2.0" in r.err, r.err


def test_script_clash_names_both_entries(vwheel, venv, tmp_path):
    before = tree(venv)
    w = make_wheel(tmp_path, "vwclash-1.0-py3-none-any.whl", {
        "vwclash/__init__.py": b"def main():\n    pass\n",
        "vwclash-1.0.dist-info/entry_points.txt": b"[console_scripts]\nfoo = vwclash:main\n",
        "vwclash-1.0.data/scripts/foo/bar": b"#!python\n",
    })
    r = vwheel("install", w, "--python", venv / "bin" / "python")
    assert r.rc == 1, r.err
    assert "script `foo` in [console_scripts]" in r.err and "member `vwclash-1.0.data/scripts/foo/bar`" in r.err, r.err
    assert ".vwheel-tmp-" not in r.err, r.err
    assert tree(venv) == before
