"""`--link-mode` and the cache's check of its own files (issue 16, item 8): a file edited in place in
one environment (which, with hard links, is the cache's file too) is never spread to the next."""
import os
import sys
from pathlib import Path

import pytest

from served import clean_env
from wheelfactory import make_wheel

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
ORIGINAL = b"VALUE = 'original'\n"


@pytest.fixture
def wheel(tmp_path):
    d = tmp_path / "wheels"
    d.mkdir()
    return make_wheel(d, "linked-1.0-py3-none-any.whl", {"linked/__init__.py": ORIGINAL})


def venv(vwheel, path):
    r = vwheel("venv", path, "--python", PY)
    assert r.rc == 0, r.err
    return path


def module_file(env):
    (f,) = env.glob("lib/python*/site-packages/linked/__init__.py")
    return f


def install(vwheel, tmp_path, wheel, env, *args):
    return vwheel("install", wheel, "--python", env / "bin" / "python", *args, env=clean_env(tmp_path))


def test_hardlink_edit_in_one_environment_does_not_reach_the_next(vwheel, tmp_path, wheel):
    a = venv(vwheel, tmp_path / "a")
    r = install(vwheel, tmp_path, wheel, a, "--link-mode", "hardlink")
    assert r.rc == 0, r.err
    f = module_file(a)
    assert f.stat().st_nlink >= 2  # shared with the cache
    with open(f, "r+b") as out:  # in place, as an editor that does not replace the file would
        out.write(b"VALUE = 'EDITED!!'\n")
    b = venv(vwheel, tmp_path / "b")
    r = install(vwheel, tmp_path, wheel, b, "--link-mode", "hardlink")
    assert r.rc == 0, r.err
    assert "from cache" not in r.out, r.out  # the edited entry was unpacked again
    assert module_file(b).read_bytes() == ORIGINAL
    # ... and cached anew: a third environment is served from the cache, with the original.
    c = venv(vwheel, tmp_path / "c")
    r = install(vwheel, tmp_path, wheel, c, "--link-mode", "hardlink")
    assert r.rc == 0 and "from cache" in r.out, (r.out, r.err)
    assert module_file(c).read_bytes() == ORIGINAL


@pytest.mark.parametrize("mode", ["copy", "reflink"])
def test_copy_and_reflink_give_each_environment_its_own_files(vwheel, tmp_path, wheel, mode):
    a = venv(vwheel, tmp_path / "a")
    r = install(vwheel, tmp_path, wheel, a, "--link-mode", mode)
    assert r.rc == 0, r.err
    b = venv(vwheel, tmp_path / "b")
    r = install(vwheel, tmp_path, wheel, b, "--link-mode", mode)
    assert r.rc == 0 and "from cache" in r.out, (r.out, r.err)
    for env in (a, b):
        f = module_file(env)
        assert f.stat().st_nlink == 1 and f.read_bytes() == ORIGINAL
    with open(module_file(a), "r+b") as out:
        out.write(b"VALUE = 'EDITED!!'\n")
    assert module_file(b).read_bytes() == ORIGINAL


def test_unknown_link_mode_is_a_usage_error(vwheel, tmp_path, wheel):
    a = venv(vwheel, tmp_path / "a")
    r = install(vwheel, tmp_path, wheel, a, "--link-mode", "symlink")
    assert r.rc == 2 and "--link-mode" in r.err, (r.rc, r.err)


def test_versioned_script_names_follow_the_running_python(vwheel, tmp_path):
    """As pip: a wheel built on 3.7 lists `pip3.7` and `easy_install-3.6`; they are written as the
    running Python's `pip3.X` and `easy_install-3.X` (issue 16, item 9)."""
    d = tmp_path / "wheels"
    d.mkdir()
    entry_points = ("[console_scripts]\npip = fakepip:main\npip3 = fakepip:main\npip3.7 = fakepip:main\n"
                    "easy_install = fakepip:main\neasy_install-3.6 = fakepip:main\n").encode()
    wheel = make_wheel(d, "fakepip-1.0-py3-none-any.whl",
                       {"fakepip/__init__.py": b"def main():\n    print('fake pip')\n",
                        "fakepip-1.0.dist-info/entry_points.txt": entry_points})
    env = venv(vwheel, tmp_path / "env")
    version = ".".join(next(env.glob("lib/python*")).name[len("python"):].split(".")[:2])
    r = install(vwheel, tmp_path, wheel, env)
    assert r.rc == 0, r.err
    scripts = {p.name for p in (env / "bin").iterdir() if p.name.startswith(("pip", "easy_install"))}
    assert {"pip", "pip3", f"pip{version}", "easy_install", f"easy_install-{version}"} <= scripts, scripts
    if version != "3.7":
        assert "pip3.7" not in scripts
    assert "easy_install-3.6" not in scripts
