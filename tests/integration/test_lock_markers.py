"""Universal locks write each entry's `marker` (issue 52): evaluated with packaging.markers (no
vwheel code) on a grid of environments, at most one entry of each name applies in each, and the
entries that apply are the ones the requirements need there. The lock covers CPython and PyPy on
Linux (x86_64, aarch64, i686), Windows and macOS with Python 3.9 to 3.15, narrowed by
`--python-version`, which becomes the lock's `requires-python`."""
import tomllib

import pytest
from packaging.markers import Marker

from example_site import PY, norm
from test_lock_sync import run_vwheel
from wheelfactory import make_wheel

PLATFORMS = [("linux", "Linux", "posix", "x86_64"), ("linux", "Linux", "posix", "i686"),
             ("darwin", "Darwin", "posix", "arm64"), ("win32", "Windows", "nt", "AMD64")]
PYTHONS = ["3.9", "3.11", "3.13"]
IMPLEMENTATIONS = [("cpython", "CPython"), ("pypy", "PyPy")]


def grid():
    for sys_platform, system, os_name, machine in PLATFORMS:
        for python in PYTHONS:
            for impl, pyimpl in IMPLEMENTATIONS:
                if impl == "pypy" and python == "3.13":
                    continue
                yield {"sys_platform": sys_platform, "platform_system": system, "os_name": os_name,
                       "platform_machine": machine, "python_version": python, "python_full_version": python + ".0",
                       "implementation_name": impl, "platform_python_implementation": pyimpl,
                       "implementation_version": python + ".0", "platform_release": "", "platform_version": "",
                       "extra": ""}


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    d = tmp_path_factory.mktemp("marker-links")
    make_wheel(d, "a-1.0-py3-none-any.whl", requires=["c"])
    make_wheel(d, "b-1.0-py3-none-any.whl")
    make_wheel(d, "b-2.0-py3-none-any.whl")
    make_wheel(d, "c-1.0-py3-none-any.whl")
    make_wheel(d, "old-1.0-py3-none-any.whl")
    make_wheel(d, "old-2.0-py3-none-any.whl", requires_python=">=3.12")
    make_wheel(d, "pyonly-1.0-py3-none-any.whl")
    make_wheel(d, "i686dep-1.0-py3-none-manylinux_2_17_i686.whl")
    make_wheel(d, "i686dep-1.0-py3-none-win_amd64.whl")  # no environment that needs i686dep can use it
    return d


ROOTS = ["a", 'b>=2; sys_platform == "linux"', 'b<2; sys_platform == "darwin"', 'old; python_version < "3.10"',
         'pyonly; implementation_name == "pypy"', 'i686dep; platform_machine == "i686"']


def lock(vwheel_bin, links, tmp_path, *extra):
    out = tmp_path / "pylock.toml"
    r = run_vwheel(vwheel_bin, tmp_path, "lock", *ROOTS, "--no-index", "--find-links", links, "-o", out,
                   "--python", PY, *extra)
    assert r.returncode == 0, r.stderr
    return tomllib.loads(out.read_text())


def applying(doc, env):
    """{name: [version, ...]} of the entries whose marker holds in `env`."""
    out = {}
    for p in doc["packages"]:
        if "marker" not in p or Marker(p["marker"]).evaluate(env):
            out.setdefault(norm(p["name"]), []).append(p["version"])
    return out


def expected(env, oldest="3.9"):
    python = tuple(map(int, env["python_version"].split(".")))
    out = {"a": ["1.0"], "c": ["1.0"]}
    if env["sys_platform"] == "linux":
        out["b"] = ["2.0"]
    if env["sys_platform"] == "darwin":
        out["b"] = ["1.0"]
    if python < (3, 10) and python >= tuple(map(int, oldest.split("."))):
        out["old"] = ["1.0"]
    if env["implementation_name"] == "pypy":
        out["pyonly"] = ["1.0"]
    if env["platform_machine"] == "i686":
        out["i686dep"] = ["1.0"]
    return out


def test_every_environment_gets_exactly_what_it_needs(vwheel_bin, links, tmp_path):
    doc = lock(vwheel_bin, links, tmp_path)
    markers = {(norm(p["name"]), p["version"]): p.get("marker") for p in doc["packages"]}
    # Readable markers: what the requirements say, not a list of environments.
    assert markers[("b", "2.0")] == 'sys_platform == "linux"', markers
    assert markers[("b", "1.0")] == 'sys_platform == "darwin"', markers
    assert markers[("pyonly", "1.0")] == 'implementation_name == "pypy"', markers
    assert markers[("i686dep", "1.0")] == 'sys_platform == "linux" and platform_machine == "i686"', markers
    assert markers[("old", "1.0")] == 'python_full_version < "3.10"', markers
    assert markers[("a", "1.0")] is None and markers[("c", "1.0")] is None, markers
    # old 2.0 needs Python 3.12, and old is needed only below 3.10: never locked.
    assert ("old", "2.0") not in markers
    for env in grid():
        assert applying(doc, env) == expected(env), env
    assert "requires-python" not in doc
    wheels = {norm(p["name"]): [w["name"] for w in p["wheels"]] for p in doc["packages"]}
    assert wheels["i686dep"] == ["i686dep-1.0-py3-none-manylinux_2_17_i686.whl"], wheels


def test_python_version_narrows_the_lock(vwheel_bin, links, tmp_path):
    doc = lock(vwheel_bin, links, tmp_path, "--python-version", ">=3.11")
    assert doc["requires-python"] == ">=3.11"
    names = {norm(p["name"]) for p in doc["packages"]}
    assert "old" not in names, names  # needed only on Pythons the lock does not cover
    for env in grid():
        if env["python_version"] != "3.9":
            assert applying(doc, env) == expected(env, oldest="3.11"), env


def test_bad_python_version_is_refused(vwheel_bin, links, tmp_path):
    r = run_vwheel(vwheel_bin, tmp_path, "lock", "a", "--no-index", "--find-links", links, "-o", tmp_path / "x.toml",
                   "--python", PY, "--python-version", "three")
    assert r.returncode == 2, r.stderr
    assert "`three`" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "x.toml").exists()


def interpreter_minor():
    import subprocess
    out = subprocess.run([str(PY), "-c", "import sys; print(sys.version_info[1])"], capture_output=True, text=True)
    return int(out.stdout)


def test_without_a_range_the_lock_starts_where_the_requirements_resolve(vwheel_bin, tmp_path):
    # newonly 1.0 needs Python >= 3.10, 2.0 >= 3.12: nothing resolves on 3.9. Nobody asked for 3.9
    # (no requires-python, no --python-version): the lock covers >= 3.10, says so, and is exact there.
    if interpreter_minor() < 10:
        pytest.skip("the interpreter is older than Python 3.10: the fallback stops at its own Python")
    d = tmp_path / "links"
    d.mkdir()
    make_wheel(d, "newonly-1.0-py3-none-any.whl", requires_python=">=3.10")
    make_wheel(d, "newonly-2.0-py3-none-any.whl", requires_python=">=3.12")
    out = tmp_path / "pylock.toml"
    r = run_vwheel(vwheel_bin, tmp_path, "lock", "newonly", "--no-index", "--find-links", d, "-o", out, "--python", PY)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == ("vwheel: warning: the requirements do not resolve for Python 3.9: the lock covers "
                                "Python >=3.10 (give --python-version, or requires-python in pyproject.toml, to "
                                "choose)"), r.stderr
    doc = tomllib.loads(out.read_text())
    assert doc["requires-python"] == ">=3.10"
    # One version wherever one fits (nothing forks here): 1.0 installs on every Python the lock covers.
    assert [(p["version"], p.get("marker")) for p in doc["packages"]] == [("1.0", None)]
    # Asked for explicitly, 3.9 is an error, not a narrower lock.
    r = run_vwheel(vwheel_bin, tmp_path, "lock", "newonly", "--no-index", "--find-links", d, "-o", tmp_path / "x.toml",
                   "--python", PY, "--python-version", ">=3.9")
    assert r.returncode == 1, r.stderr
    assert "python" in r.stderr and not (tmp_path / "x.toml").exists()
