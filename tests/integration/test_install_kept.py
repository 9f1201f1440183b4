"""Never an incomplete environment (issue 15, item 3), for what an install keeps: when a
distribution already installed, and not part of this run, requires a project the run would change
to a version it does not accept, `vwheel install` refuses with one line naming it, before anything
changes (pip would install and warn)."""
import sys
from pathlib import Path

import pytest

from example_site import make_venv, norm, tree
from test_lock_forks import installed

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import make_example_index as example  # noqa: E402


@pytest.fixture
def links(tmp_path):
    out = tmp_path / "links"
    out.mkdir()
    example.plain_wheel(out, "a", "1.0", ["b<2", 'c>=2; sys_platform == "win32"'], "non-variant")
    for version in ("1.0", "2.0"):
        example.plain_wheel(out, "b", version, [], "non-variant")
        example.plain_wheel(out, "c", version, [], "non-variant")
    return out


def test_an_install_that_would_break_a_kept_distribution_is_refused(vwheel, links, tmp_path):
    venv = make_venv(vwheel, tmp_path / "venv")
    src = ["--no-index", "--find-links", links, "--python", venv]
    r = vwheel("install", "a", "c==1.0", *src)
    assert r.rc == 0, r.err
    assert installed(vwheel, venv) == {"a": ("1.0", ""), "b": ("1.0", ""), "c": ("1.0", "")}
    before = tree(venv)
    r = vwheel("install", "b==2.0", *src)
    assert r.rc == 1, (r.out, r.err)
    assert r.err.strip().endswith(
        "a 1.0 requires b<2, but this run would install b 2.0: give both requirements (or a too) to resolve "
        "them together"), r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert tree(venv) == before
    # A requirement whose marker does not hold here (c>=2 on Windows only) does not stand in the way.
    r = vwheel("install", "c==2.0", *src)
    assert r.rc == 0, r.err
    r = vwheel("install", "c==1.0", *src)
    assert r.rc == 0, r.err
    # Upgrading b together with a (which still says b<2) is resolved as one: b stays below 2.
    r = vwheel("install", "a", "b", *src)
    assert r.rc == 0, r.err
    assert installed(vwheel, venv)[norm("b")] == ("1.0", "")
