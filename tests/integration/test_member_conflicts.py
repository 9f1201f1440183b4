"""Wheels whose members cannot all be written (`x` and `x/y`, names too long for the file system):
refused while planning, with exit 1 and one line naming the wheel and its members, the
environment unchanged (it was exit 3 with a staging path)."""
import sys
from pathlib import Path

import pytest

from wheelfactory import make_wheel
from snapshot import tree

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


@pytest.fixture
def venv(vwheel, tmp_path):
    d = tmp_path / "venv"
    r = vwheel("venv", d, "--python", PY)
    assert r.rc == 0, r.err
    return d


def refused(vwheel, venv, *wheels):
    before = tree(venv)
    r = vwheel("install", *wheels, "--python", venv / "bin" / "python")
    assert r.rc == 1, (r.out, r.err)
    assert r.err.startswith("vwheel: error: ") and r.err.count("\n") == 1, r.err
    assert ".vwheel-tmp" not in r.err, r.err
    assert tree(venv) == before
    return r.err


def test_a_member_below_a_file_member_is_refused(vwheel, venv, tmp_path):
    w = make_wheel(tmp_path, "clash-1.0-py3-none-any.whl",
                   {"clash/__init__.py": b"", "clash/x": b"file\n", "clash/x/y": b"below\n"})
    err = refused(vwheel, venv, w)
    assert "clash-1.0-py3-none-any.whl" in err, err
    assert "member `clash/x` is a file, but member `clash/x/y` is below it" in err, err


@pytest.mark.parametrize("kind", ["component", "whole"])
def test_over_long_member_names_are_refused_abbreviated(vwheel, venv, tmp_path, kind):
    if kind == "component":
        name = "longname/" + "n" * 300 + ".py"
    else:
        name = "longname/" + "/".join(["d" * 200] * 21)[: 4096 - len("longname/")]
    w = make_wheel(tmp_path, "longname-1.0-py3-none-any.whl", {"longname/__init__.py": b"", name: b"x\n"})
    err = refused(vwheel, venv, w)
    assert "longname-1.0-py3-none-any.whl: member `longname/" in err, err
    assert "…" in err and len(err) < 400, err
    assert ("a path component of 303 bytes" if kind == "component" else "4096 bytes") in err, err


def test_two_wheels_making_one_path_a_file_and_a_directory_are_both_named(vwheel, venv, tmp_path):
    a = make_wheel(tmp_path, "alpha-1.0-py3-none-any.whl", {"alpha.py": b"", "shared/x": b"file\n"})
    b = make_wheel(tmp_path, "beta-1.0-py3-none-any.whl", {"beta.py": b"", "shared/x/y.py": b"below\n"})
    err = refused(vwheel, venv, a, b)
    assert "alpha-1.0-py3-none-any.whl, member `shared/x`" in err, err
    assert "beta-1.0-py3-none-any.whl, member `shared/x/y.py`" in err, err
