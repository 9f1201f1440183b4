"""`vwheel install NAME` of versions that only an sdist gives, from --find-links folders and an HTTP
simple index (`vwheel index build` + `vwheel index serve`): resolved from PKG-INFO when static (PEP
643), else from the wheel built; built into wheels in isolated environments (or the target's with
--no-build-isolation), kept in the cache's `built-wheels` area; pip's --no-binary, --only-binary,
--prefer-binary, and --no-build, --build-timeout; failed builds leave a log and install nothing.

The sdists are made here with a small in-tree backend that counts its builds in a file (a build
runs with a minimal environment, so the file's path is written into the backend), and with Debian's
real setuptools and hatchling (/usr/bin/python3).
"""
import base64
import hashlib
import io
import json
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from served import start_serve

PY = "/usr/bin/python3"

# A PEP 517 backend that writes the wheel of `{module}.py` with the METADATA the sdist's PKG-INFO
# names (Requires-Dist included), and appends one line to COUNTER for each wheel it builds.
COUNTING_BACKEND = '''\
import base64, hashlib, os, sys, time, zipfile

COUNTER = {counter!r}
MODE = {mode!r}
PREPARE = {prepare!r}

def _b64(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open(COUNTER, "a") as f:
        f.write("built\\n")
    if MODE == "fail":
        for i in range(30):
            print(f"compiling step {{i}}")
        print("error: the compiler exploded", file=sys.stderr)
        raise RuntimeError("backend failure")
    if MODE == "hang":
        print("thinking forever", flush=True)
        time.sleep(600)
    if MODE == "outside":
        with open(os.path.join("..", "stray.txt"), "w") as f:
            f.write("written beside the source tree, outside the backend's folders")
    with open("PKG-INFO") as f:
        headers = f.read().split("\\n\\n")[0]
    name = next(l.split(": ", 1)[1] for l in headers.splitlines() if l.startswith("Name: "))
    version = next(l.split(": ", 1)[1] for l in headers.splitlines() if l.startswith("Version: "))
    requires = [l for l in headers.splitlines() if l.startswith("Requires-Dist: ")]
    norm = name.replace("-", "_")
    info = f"{{norm}}-{{version}}.dist-info"
    files = {{f"{{norm}}.py": f"VALUE = {{version!r}}\\n".encode()}}
    metadata = f"Metadata-Version: 2.1\\nName: {{name}}\\nVersion: {{version}}\\n" + "".join(r + "\\n" for r in requires)
    files[f"{{info}}/METADATA"] = metadata.encode()
    files[f"{{info}}/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: counting\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = "".join(f"{{p}},sha256={{_b64(d)}},{{len(d)}}\\n" for p, d in files.items()) + f"{{info}}/RECORD,,\\n"
    files[f"{{info}}/RECORD"] = record.encode()
    wheel = f"{{norm}}-{{version}}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as z:
        for p, d in files.items():
            z.writestr(p, d)
    return wheel

def _prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    with open(COUNTER + ".prepared", "a") as f:
        f.write("prepared\\n")
    with open("PKG-INFO") as f:
        headers = f.read().split("\\n\\n")[0]
    name = next(l.split(": ", 1)[1] for l in headers.splitlines() if l.startswith("Name: "))
    version = next(l.split(": ", 1)[1] for l in headers.splitlines() if l.startswith("Version: "))
    info = os.path.join(metadata_directory, f"{{name.replace('-', '_')}}-{{version}}.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(headers + "\\n")
    return os.path.basename(info)

if PREPARE:
    prepare_metadata_for_build_wheel = _prepare_metadata_for_build_wheel
'''


def make_sdist(folder: Path, counters: Path, name: str, version: str, requires=(), metadata_version="2.2",
               dynamic=(), mode="ok", prepare=False) -> Path:
    """`{name}-{version}.tar.gz` in `folder`, built by COUNTING_BACKEND (counting into
    counters/{name}-{version})."""
    folder.mkdir(parents=True, exist_ok=True)
    counters.mkdir(parents=True, exist_ok=True)
    norm = name.replace("-", "_")
    top = f"{norm}-{version}"
    pkg_info = f"Metadata-Version: {metadata_version}\nName: {name}\nVersion: {version}\n"
    pkg_info += "".join(f"Requires-Dist: {r}\n" for r in requires)
    pkg_info += "".join(f"Dynamic: {d}\n" for d in dynamic)
    deps = ", ".join(f'"{r}"' for r in requires)
    files = {
        "PKG-INFO": pkg_info,
        "pyproject.toml": ('[build-system]\nrequires = []\nbuild-backend = "counting"\nbackend-path = ["."]\n\n'
                           f'[project]\nname = "{name}"\nversion = "{version}"\ndependencies = [{deps}]\n'),
        "counting.py": COUNTING_BACKEND.format(counter=str(counters / f"{name}-{version}"), mode=mode,
                                                prepare=prepare),
    }
    path = folder / f"{top}.tar.gz"
    with tarfile.open(path, "w:gz") as t:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return path


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(folder: Path, name: str, version: str, requires=()) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    norm = name.replace("-", "_")
    info = f"{norm}-{version}.dist-info"
    files = {f"{norm}.py": f"VALUE = {version!r}\n".encode()}
    files[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                 + "".join(f"Requires-Dist: {r}\n" for r in requires)).encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/RECORD"] = ("".join(f"{p},sha256={_b64(d)},{len(d)}\n" for p, d in files.items())
                               + f"{info}/RECORD,,\n").encode()
    path = folder / f"{norm}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for p, d in files.items():
            z.writestr(p, d)
    return path


def venv(path: Path, system=False) -> Path:
    args = [PY, "-m", "venv", "--without-pip", str(path)]
    if system:
        args.insert(3, "--system-site-packages")
    subprocess.run(args, check=True)
    return path / "bin" / "python"


def site(python: Path) -> Path:
    return next(python.parent.parent.glob("lib/python3*/site-packages"))


def value(python: Path, module: str) -> str:
    r = subprocess.run([str(python), "-c", f"import {module}; print({module}.VALUE)"], capture_output=True, text=True)
    return r.stdout.strip() or r.stderr.strip().splitlines()[-1]


def builds(counters: Path, name: str, version: str, what="") -> int:
    f = counters / f"{name}-{version}{what}"
    return len(f.read_text().splitlines()) if f.exists() else 0


def installed(python: Path, name: str) -> bool:
    return bool(list(site(python).glob(f"{name}-*.dist-info")))


@pytest.fixture
def chain(tmp_path):
    """a (a wheel) -> b -> c, b and c only sdists, in a --find-links folder."""
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_wheel(links, "a", "1.0", ["b>=1"])
    make_sdist(links, counters, "b", "1.0", ["c"])
    make_sdist(links, counters, "c", "2.0")
    return links, counters


def check_chain(python: Path, counters: Path, r):
    assert r.rc == 0, r.err
    assert [value(python, m) for m in "abc"] == ["1.0", "1.0", "2.0"]
    assert builds(counters, "b", "1.0") == 1 and builds(counters, "c", "2.0") == 1
    # PEP 610: an install from an index or --find-links has no direct_url.json (pip writes none).
    for name in "bc":
        info = next(site(python).glob(f"{name}-*.dist-info"))
        assert not (info / "direct_url.json").exists()
        assert "direct_url.json" not in (info / "RECORD").read_text()


def test_sdist_only_dependencies_three_levels_from_find_links(vwheel, chain, tmp_path):
    links, counters = chain
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "a")
    check_chain(python, counters, r)
    assert "b 1.0" in r.out and "b-1.0.tar.gz" in r.out, r.out
    # Installed already as planned: nothing is built (not even without the cache).
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-cache", "a")
    assert r.rc == 0, r.err
    assert "b 1.0 already installed" in r.out, r.out
    assert builds(counters, "b", "1.0") == 1 and builds(counters, "c", "2.0") == 1


def test_sdist_only_dependencies_three_levels_from_an_http_index(vwheel, chain, tmp_path):
    links, counters = chain
    r = vwheel("index", "build", links, "-o", tmp_path / "site")
    assert r.rc == 0, r.err
    served = start_serve(tmp_path, tmp_path / "site")
    try:
        python = venv(tmp_path / "venv")
        r = vwheel("install", "--python", python, "--index-url", served.index_url, "a")
        check_chain(python, counters, r)
        # The sdists were downloaded from the server, as its log says.
        log = served.log.read_text()
        assert "b-1.0.tar.gz" in log and "c-2.0.tar.gz" in log, log
    finally:
        served.stop()


def test_a_second_install_from_an_http_index_downloads_no_sdist(vwheel, chain, tmp_path):
    # Whether an sdist has variants (which the built wheel's key depends on) is remembered: the
    # kept wheels are taken by the index's sha256, without downloading their sdists again.
    links, counters = chain
    r = vwheel("index", "build", links, "-o", tmp_path / "site")
    assert r.rc == 0, r.err
    served = start_serve(tmp_path, tmp_path / "site")
    try:
        r = vwheel("install", "--python", venv(tmp_path / "venv1"), "--index-url", served.index_url, "a")
        assert r.rc == 0, r.err
        before = len(served.log.read_text())
        python = venv(tmp_path / "venv2")
        r = vwheel("install", "--python", python, "--index-url", served.index_url, "a")
        check_chain(python, counters, r)
        later = served.log.read_text()[before:]
        assert ".tar.gz" not in later, later
    finally:
        served.stop()


def test_a_wrong_sha256_of_an_indexed_sdist_is_refused(vwheel, chain, tmp_path):
    links, _ = chain
    r = vwheel("index", "build", links, "-o", tmp_path / "site")
    assert r.rc == 0, r.err
    # The sdist changes after the index named its sha256.
    sdist = tmp_path / "site" / "files" / "b-1.0.tar.gz"
    if not sdist.exists():
        sdist = next((tmp_path / "site").rglob("b-1.0.tar.gz"))
    data = bytearray(sdist.read_bytes())
    data[-1] ^= 0xFF  # (its size stays: the sha256 tells)
    sdist.write_bytes(bytes(data))
    served = start_serve(tmp_path, tmp_path / "site")
    try:
        python = venv(tmp_path / "venv")
        r = vwheel("install", "--python", python, "--index-url", served.index_url, "a")
        assert r.rc != 0
        assert "b-1.0.tar.gz" in r.err and "sha256" in r.err, r.err
        assert not installed(python, "a") and not installed(python, "b")
    finally:
        served.stop()


def test_static_pkg_info_is_read_without_building_a_version_not_chosen(vwheel, tmp_path):
    links, counters = tmp_path / "links", tmp_path / "counters"
    # b 2.0 needs a c that does not exist: the resolver reads its PKG-INFO, backtracks to b 1.0.
    make_sdist(links, counters, "b", "2.0", ["c>=9"])
    make_sdist(links, counters, "b", "1.0", ["c"])
    make_sdist(links, counters, "c", "1.0")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "b")
    assert r.rc == 0, r.err
    assert value(python, "b") == "1.0"
    assert builds(counters, "b", "2.0") == 0, "a static PKG-INFO is read, not built"
    assert builds(counters, "b", "1.0") == 1


def test_dynamic_metadata_is_built_once_for_resolution_and_install(vwheel, tmp_path):
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_sdist(links, counters, "b", "2.0", ["c>=9"], dynamic=["Requires-Dist"])
    make_sdist(links, counters, "b", "1.0", ["c"], metadata_version="2.1")
    make_sdist(links, counters, "c", "1.0")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "b")
    assert r.rc == 0, r.err
    assert value(python, "b") == "1.0"
    # The dynamic versions had to be built to be resolved; the one installed is not built again.
    assert builds(counters, "b", "2.0") == 1
    assert builds(counters, "b", "1.0") == 1


def test_prepare_metadata_for_build_wheel_is_asked_before_building(vwheel, tmp_path):
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_sdist(links, counters, "b", "2.0", ["c>=9"], dynamic=["Requires-Dist"], prepare=True)
    make_sdist(links, counters, "b", "1.0", ["c"], metadata_version="2.1", prepare=True)
    make_sdist(links, counters, "c", "1.0")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "b")
    assert r.rc == 0, r.err
    assert value(python, "b") == "1.0" and value(python, "c") == "1.0"
    # b 2.0 was prepared, never built; b 1.0 prepared, then built to be installed.
    assert (builds(counters, "b", "2.0", ".prepared"), builds(counters, "b", "2.0")) == (1, 0)
    assert (builds(counters, "b", "1.0", ".prepared"), builds(counters, "b", "1.0")) == (1, 1)


def test_the_second_install_takes_the_built_wheels_from_the_cache(vwheel, chain, tmp_path):
    links, counters = chain
    for n in (1, 2):
        python = venv(tmp_path / f"venv{n}")
        r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "a")
        check_chain(python, counters, r)
    kept = list((tmp_path / "cache" / "vwheel" / "built-wheels").glob("*/*.whl"))
    assert sorted(p.name for p in kept) == ["b-1.0-py3-none-any.whl", "c-2.0-py3-none-any.whl"]
    # --no-cache builds in a folder of its own, and again.
    python = venv(tmp_path / "venv3")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-cache", "a")
    assert r.rc == 0, r.err
    assert builds(counters, "b", "1.0") == 2


def test_isolated_builds_share_one_kept_environment(vwheel, chain, tmp_path):
    # b and c ask for the same build requirements: one environment is made for both, and a later
    # run's build (d) uses it again instead of making another.
    links, counters = chain
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "a")
    check_chain(python, counters, r)
    kept = tmp_path / "cache" / "vwheel" / "built-wheels" / "environments"
    envs = [p.parent for p in kept.glob("*/*/.vwheel-ready")]
    assert len(envs) == 1, sorted(kept.rglob("*"))
    (envs[0] / "kept-marker").write_text("")
    make_sdist(links, counters, "d", "1.0")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "d")
    assert r.rc == 0, r.err
    assert builds(counters, "d", "1.0") == 1 and value(python, "d") == "1.0"
    assert [p.parent for p in kept.glob("*/*/.vwheel-ready")] == envs
    assert (envs[0] / "kept-marker").exists()
    # Other sources fill environments of their own.
    other = tmp_path / "other-links"
    make_sdist(other, counters, "e", "1.0")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", other, "e")
    assert r.rc == 0, r.err
    assert len(list(kept.glob("*/*/.vwheel-ready"))) == 2


def test_builds_show_their_progress_on_a_terminal_or_when_asked(vwheel, chain, tmp_path):
    links, counters = chain
    python = venv(tmp_path / "venv")
    # Not a terminal: the output is as before, no build lines.
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-cache", "a")
    assert r.rc == 0, r.err
    assert "building" not in r.err and "built" not in r.err, r.err
    python = venv(tmp_path / "venv2")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-cache", "a",
               env={"VWHEEL_PROGRESS": "lines"})
    assert r.rc == 0, r.err
    for name, version in (("b", "1.0"), ("c", "2.0")):
        assert f"building {name} {version} ({name}-{version}.tar.gz)\n" in r.err, r.err
        assert f"built {name} {version} ({name}-{version}.tar.gz) in " in r.err, r.err
    # -q: nothing.
    python = venv(tmp_path / "venv3")
    r = vwheel("install", "-q", "--python", python, "--no-index", "--find-links", links, "--no-cache", "a",
               env={"VWHEEL_PROGRESS": "lines"})
    assert r.rc == 0, r.err
    assert "building" not in r.err, r.err


def test_only_binary_says_why_nothing_fits(vwheel, chain, tmp_path):
    links, counters = chain
    python = venv(tmp_path / "venv")
    for option in (":all:", "b"):
        r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--only-binary", option, "a")
        assert r.rc == 1, r.err
        assert "only a source distribution, and --only-binary is set" in r.err, r.err
    assert not installed(python, "a")
    assert builds(counters, "b", "1.0") == 0
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--only-binary", "bad name", "a")
    assert r.rc == 2 and "--only-binary `bad name`" in r.err, r.err


def test_no_binary_builds_the_sdist_of_a_version_with_a_wheel(vwheel, tmp_path):
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_wheel(links, "b", "1.0")
    make_sdist(links, counters, "b", "1.0")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "b")
    assert r.rc == 0, r.err
    assert builds(counters, "b", "1.0") == 0, "the wheel comes first"
    python = venv(tmp_path / "venv2")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-binary", ":all:", "b")
    assert r.rc == 0, r.err
    assert builds(counters, "b", "1.0") == 1
    # --only-binary for the name, after --no-binary :all:, takes its wheel again.
    python = venv(tmp_path / "venv3")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-binary", ":all:",
               "--only-binary", "b", "b")
    assert r.rc == 0, r.err
    assert builds(counters, "b", "1.0") == 1


def test_prefer_binary_takes_an_older_wheel_over_a_newer_sdist(vwheel, tmp_path):
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_wheel(links, "b", "1.0")
    make_sdist(links, counters, "b", "2.0")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--prefer-binary", "b")
    assert r.rc == 0, r.err
    assert value(python, "b") == "1.0" and builds(counters, "b", "2.0") == 0
    python = venv(tmp_path / "venv2")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "b")
    assert r.rc == 0, r.err
    assert value(python, "b") == "2.0" and builds(counters, "b", "2.0") == 1


def test_no_build_refuses_naming_the_package_and_its_sdist(vwheel, chain, tmp_path):
    links, counters = chain
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-build", "a")
    assert r.rc == 1, r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert "b 1.0" in r.err and "b-1.0.tar.gz" in r.err and "--no-build" in r.err, r.err
    assert builds(counters, "b", "1.0") == 0 and not installed(python, "a")


def test_a_failing_build_names_its_log_and_installs_nothing(vwheel, tmp_path):
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_wheel(links, "a", "1.0", ["b"])
    make_sdist(links, counters, "b", "1.0", mode="fail")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "a")
    assert r.rc == 1, r.err
    first = r.err.strip().splitlines()[0]
    assert "building b 1.0 (b-1.0.tar.gz)" in first, r.err
    assert "RuntimeError: backend failure" in first, r.err
    log = Path(first.split("its whole output is in ")[1].strip())
    assert log.is_relative_to(tmp_path / "cache" / "vwheel" / "built-wheels")
    text = log.read_text()
    assert "compiling step 0" in text and "compiling step 29" in text, "the whole output"
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert not installed(python, "a") and not installed(python, "b")
    # --verbose: the last 20 lines follow the error.
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--verbose", "a")
    assert r.rc == 1, r.err
    details = r.err.strip().splitlines()[1:]
    assert len(details) == 20 and "RuntimeError: backend failure" in details[-1], r.err
    assert "compiling step 29" in r.err and "compiling step 0\n" not in r.err, r.err
    # --no-cache: the log is in the run's temporary folder; the error still names it.
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-cache", "a")
    assert r.rc == 1 and "its whole output is in " in r.err, r.err
    log = Path(r.err.strip().split("its whole output is in ")[1])
    assert "compiling step 29" in log.read_text(), "the log outlives the run's folder"
    assert not log.is_relative_to(tmp_path / "cache")
    log.unlink()
    log.parent.rmdir()


def test_a_hanging_backend_is_stopped_by_build_timeout(vwheel, tmp_path):
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_wheel(links, "a", "1.0", ["b"])
    make_sdist(links, counters, "b", "1.0", mode="hang")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--build-timeout", "5", "a")
    assert r.rc != 0
    assert "b 1.0" in r.err and "did not finish within 5 s (--build-timeout)" in r.err, r.err
    assert builds(counters, "b", "1.0") == 1
    assert not installed(python, "a") and not installed(python, "b")


# ---- real backends (Debian's setuptools and hatchling), built with --no-build-isolation ----

SETUP_C = """\
from setuptools import Extension, setup
setup(ext_modules=[Extension("fastmod", ["fastmod.c"])])
"""

FASTMOD_C = """\
#define PY_SSIZE_T_CLEAN
#include <Python.h>
static PyObject *answer(PyObject *self, PyObject *args) { return PyLong_FromLong(6 * 7); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "fastmod", NULL, -1, methods};
PyMODINIT_FUNC PyInit_fastmod(void) { return PyModule_Create(&module); }
"""


def real_sdist(vwheel, tmp_path, name, pyproject, files, links):
    proj = tmp_path / "src" / name
    proj.mkdir(parents=True)
    (proj / "pyproject.toml").write_text(pyproject)
    for rel, text in files.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    out = tmp_path / "dist" / name
    r = vwheel("build", "--sdist", proj, "-o", out, "--no-isolation", "--python", PY)
    assert r.rc == 0, r.err
    sdist = next(out.glob("*.tar.gz"))
    links.mkdir(exist_ok=True)
    (links / sdist.name).write_bytes(sdist.read_bytes())


def test_setuptools_pure_and_c_extension_sdists(vwheel, tmp_path):
    links = tmp_path / "links"
    real_sdist(vwheel, tmp_path, "purepkg",
               '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
               '[project]\nname = "purepkg"\nversion = "1.0"\ndependencies = ["fastmod"]\n',
               {"purepkg.py": "VALUE = 'pure'\n"}, links)
    real_sdist(vwheel, tmp_path, "fastmod",
               '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
               '[project]\nname = "fastmod"\nversion = "0.3"\n',
               {"setup.py": SETUP_C, "fastmod.c": FASTMOD_C}, links)
    python = venv(tmp_path / "venv", system=True)
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-build-isolation", "purepkg")
    assert r.rc == 0, r.err
    assert value(python, "purepkg") == "pure"
    out = subprocess.run([str(python), "-c", "import fastmod; print(fastmod.answer(), fastmod.__file__)"],
                         capture_output=True, text=True)
    assert out.stdout.split()[0] == "42", out.stderr
    assert out.stdout.split()[1].endswith(".so")
    wheels = [p.name for p in (tmp_path / "cache" / "vwheel" / "built-wheels").glob("*/*.whl")]
    assert any(w.startswith("fastmod-0.3-cp3") and "linux" in w for w in wheels), wheels


def test_hatchling_and_flit_sdists(vwheel, tmp_path):
    # Debian's hatchling (1.12) and flit_core (3.8) write Metadata-Version 2.1: built to be resolved,
    # and the wheel built then is the one installed.
    links = tmp_path / "links"
    real_sdist(vwheel, tmp_path, "hatched",
               '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
               '[project]\nname = "hatched"\nversion = "1.5"\ndependencies = ["flitted"]\n',
               {"hatched/__init__.py": "VALUE = 'h'\n"}, links)
    real_sdist(vwheel, tmp_path, "flitted",
               '[build-system]\nrequires = ["flit_core>=3.2"]\nbuild-backend = "flit_core.buildapi"\n\n'
               '[project]\nname = "flitted"\nversion = "0.2"\ndescription = "f"\n',
               {"flitted.py": '"""f"""\nVALUE = "f"\n'}, links)
    python = venv(tmp_path / "venv", system=True)
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-build-isolation", "hatched")
    assert r.rc == 0, r.err
    assert value(python, "hatched") == "h" and value(python, "flitted") == "f"
    wheels = sorted(p.name for p in (tmp_path / "cache" / "vwheel" / "built-wheels").glob("*/*.whl"))
    assert [w.split("-")[:2] for w in wheels] == [["flitted", "0.2"], ["hatched", "1.5"]], wheels


def test_a_build_failing_while_resolving_names_its_log(vwheel, tmp_path):
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_wheel(links, "a", "1.0", ["b"])
    # Metadata-Version 2.1: its dependencies are the wheel's, so resolving builds it.
    make_sdist(links, counters, "b", "1.0", metadata_version="2.1", mode="fail")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--dry-run", "a")
    assert r.rc == 1, r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert "building b 1.0 (b-1.0.tar.gz)" in r.err and "its whole output is in " in r.err, r.err
    assert builds(counters, "b", "1.0") == 1


def test_no_binary_with_only_wheels_says_why(vwheel, tmp_path):
    links = tmp_path / "links"
    make_wheel(links, "b", "1.0")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--no-binary", "b", "b")
    assert r.rc == 1, r.err
    assert "`b` 1.0: only wheels, and --no-binary is set" in r.err, r.err
    assert not installed(python, "b")


def test_hashes_of_requirement_files_are_the_sdists(vwheel, chain, tmp_path):
    links, counters = chain
    sha = {n: hashlib.sha256((links / f"{n}.tar.gz").read_bytes()).hexdigest() for n in ("b-1.0", "c-2.0")}
    reqs = tmp_path / "reqs.txt"
    reqs.write_text(f"b==1.0 --hash=sha256:{'0' * 64}\nc==2.0 --hash=sha256:{sha['c-2.0']}\n")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--require-hashes", "-r", reqs)
    assert r.rc == 1, r.err
    assert "b-1.0.tar.gz" in r.err and sha["b-1.0"] in r.err, r.err
    assert not installed(python, "b") and not installed(python, "c")
    assert builds(counters, "b", "1.0") == 0, "checked before it is built"
    reqs.write_text(f"b==1.0 --hash=sha256:{sha['b-1.0']}\nc==2.0 --hash=sha256:{sha['c-2.0']}\n")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "--require-hashes", "-r", reqs)
    assert r.rc == 0, r.err
    assert value(python, "b") == "1.0" and value(python, "c") == "2.0"


# ---- vwheel lock of versions that only sdists give (uv locks them the same way) ----

def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_lock_of_sdist_only_versions_writes_their_sdists_and_sync_builds_them(vwheel, tmp_path):
    import pep751_reader as reader
    from profiles_matrix import matrix
    env = {e.name: e for e in matrix()}
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_wheel(links, "a", "1.0", ['b>=1; sys_platform == "linux"', 'd; sys_platform == "win32"'])
    make_sdist(links, counters, "b", "1.0", ["c"])  # static PKG-INFO 2.2: read, not built
    make_sdist(links, counters, "c", "2.0", metadata_version="2.1")  # dynamic: the backend builds it
    make_sdist(links, counters, "d", "1.0")
    lock = tmp_path / "pylock.toml"
    r = vwheel("lock", "--python", PY, "--no-index", "--find-links", links, "a", "-o", lock)
    assert r.rc == 0, r.err
    assert (builds(counters, "b", "1.0"), builds(counters, "c", "2.0"), builds(counters, "d", "1.0")) == (0, 1, 0)
    doc = reader.tomllib.loads(lock.read_text())
    entries = {p["name"]: p for p in doc["packages"]}
    assert sorted(entries) == ["a", "b", "c", "d"]
    for name, version in (("b", "1.0"), ("c", "2.0"), ("d", "1.0")):
        p = entries[name]
        assert "wheels" not in p, p
        kind, table = reader.source_of(p)
        assert kind == "sdist" and table["name"] == f"{name}-{version}.tar.gz", table
        assert table["hashes"] == {"sha256": _sha256(links / table["name"])}
        assert table["size"] == (links / table["name"]).stat().st_size
    # The sdist's requirements (and their markers) are the entries' edges and markers.
    assert [(d["name"], d["version"]) for d in entries["b"]["dependencies"]] == [("c", "2.0")]
    for name in "bc":
        assert reader.evaluate_marker(entries[name]["marker"], env["linux-cp312"].environment)
        assert not reader.evaluate_marker(entries[name]["marker"], env["windows-cp312"].environment)
    assert reader.evaluate_marker(entries["d"]["marker"], env["windows-cp312"].environment)
    assert not reader.evaluate_marker(entries["d"]["marker"], env["linux-cp312"].environment)
    # PEP 751's installation steps (the independent reader): the sdists where no wheel is locked.
    linux = env["linux-cp312"]
    assert reader.install_set(lock, linux.environment, linux.tags) == {
        "a": ("1.0", "a-1.0-py3-none-any.whl"), "b": ("1.0", "b-1.0.tar.gz"), "c": ("2.0", "c-2.0.tar.gz")}
    windows = env["windows-cp312"]
    assert set(reader.install_set(lock, windows.environment, windows.tags)) == {"a", "d"}
    # sync builds b and c (sync builds a lock's sdists itself, without the built-wheels cache).
    python = venv(tmp_path / "venv")
    r = vwheel("sync", "--python", python, lock)
    assert r.rc == 0, r.err
    assert [value(python, m) for m in "abc"] == ["1.0", "1.0", "2.0"]
    assert not installed(python, "d")
    assert builds(counters, "b", "1.0") == 1 and builds(counters, "c", "2.0") >= 2


def test_lock_reads_a_real_backends_metadata_with_no_build_isolation(vwheel, tmp_path):
    # Debian's hatchling writes Metadata-Version 2.1: its sdist's dependencies are what it builds.
    links = tmp_path / "links"
    real_sdist(vwheel, tmp_path, "hatched",
               '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
               '[project]\nname = "hatched"\nversion = "1.5"\ndependencies = ["flitted; python_version >= \'3.8\'"]\n',
               {"hatched/__init__.py": "VALUE = 'h'\n"}, links)
    real_sdist(vwheel, tmp_path, "flitted",
               '[build-system]\nrequires = ["flit_core>=3.2"]\nbuild-backend = "flit_core.buildapi"\n\n'
               '[project]\nname = "flitted"\nversion = "0.2"\ndescription = "f"\n',
               {"flitted.py": '"""f"""\nVALUE = "f"\n'}, links)
    lock = tmp_path / "pylock.toml"
    r = vwheel("lock", "--python", PY, "--no-index", "--find-links", links, "--no-build-isolation", "hatched", "-o", lock)
    assert r.rc == 0, r.err
    import pep751_reader as reader
    doc = reader.tomllib.loads(lock.read_text())
    entries = {p["name"]: p for p in doc["packages"]}
    assert sorted(entries) == ["flitted", "hatched"]
    assert all("wheels" not in p and reader.source_of(p)[0] == "sdist" for p in entries.values()), entries
    assert entries["hatched"]["dependencies"] == [{"name": "flitted", "version": "0.2",
                                                   "marker": 'python_version >= "3.8"'}]
    python = venv(tmp_path / "venv", system=True)
    r = vwheel("sync", "--python", python, "--no-build-isolation", lock)
    assert r.rc == 0, r.err
    assert value(python, "hatched") == "h" and value(python, "flitted") == "f"


def test_lock_without_a_build_environment_names_the_sdist(vwheel, tmp_path):
    # Isolated, hatchling is nowhere to be had (--no-index): the error names the sdist.
    links = tmp_path / "links"
    real_sdist(vwheel, tmp_path, "hatched",
               '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
               '[project]\nname = "hatched"\nversion = "1.5"\n',
               {"hatched/__init__.py": "VALUE = 'h'\n"}, links)
    r = vwheel("lock", "--python", PY, "--no-index", "--find-links", links, "hatched", "-o", tmp_path / "pylock.toml")
    assert r.rc != 0
    assert "hatched-1.5.tar.gz" in r.err and "hatchling" in r.err, r.err
    assert not (tmp_path / "pylock.toml").exists()


def test_pip_installs_the_same_sdists_with_the_same_files_and_origin(vwheel, tmp_path):
    # The same setuptools sdist, from --find-links and by its path, installed by vwheel and by
    # Debian's pip (both building in the environment, which sees the system's setuptools).
    links = tmp_path / "links"
    real_sdist(vwheel, tmp_path, "samepkg",
               '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
               '[project]\nname = "samepkg"\nversion = "1.2"\n',
               {"samepkg/__init__.py": "VALUE = 'same'\n", "samepkg/data.txt": "data\n"}, links)
    sdist = links / "samepkg-1.2.tar.gz"

    def files(python):
        info = next(site(python).glob("samepkg-*.dist-info"))
        record = {line.rsplit(",", 2)[0] for line in (info / "RECORD").read_text().splitlines()}
        direct = info / "direct_url.json"
        return {p for p in record if "__pycache__" not in p}, (json.loads(direct.read_text()) if direct.exists() else None)

    for how in (["--no-index", "--find-links", str(links), "samepkg"], [str(sdist)]):
        ours = venv(tmp_path / f"vw-{len(how)}", system=True)
        r = vwheel("install", "--python", ours, "--no-build-isolation", *how)
        assert r.rc == 0, r.err
        theirs = venv(tmp_path / f"pip-{len(how)}", system=True)
        done = subprocess.run([str(theirs), "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", *how],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        (our_files, our_url), (their_files, their_url) = files(ours), files(theirs)
        assert our_files == their_files
        if their_url is None:
            assert our_url is None
        else:
            # PEP 610: the same URL and kind; pip 23 leaves archive_info's optional hashes out when
            # the URL gave none, vwheel records the sha256 it checked (pip reads both).
            assert our_url["url"] == their_url["url"] and "archive_info" in their_url
            assert our_url["archive_info"]["hashes"] == {"sha256": hashlib.sha256(sdist.read_bytes()).hexdigest()}
        assert value(ours, "samepkg") == "same"


def test_a_backend_writing_outside_its_folders_installs_nothing(vwheel, tmp_path):
    links, counters = tmp_path / "links", tmp_path / "counters"
    make_wheel(links, "top", "1.0", ["sneaky"])
    make_sdist(links, counters, "sneaky", "1.0", mode="outside")
    python = venv(tmp_path / "venv")
    r = vwheel("install", "--python", python, "--no-index", "--find-links", links, "top")
    assert r.rc != 0
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert "sneaky 1.0" in r.err and "stray.txt" in r.err, r.err
    assert not installed(python, "top") and not installed(python, "sneaky")


def test_jobs_one_builds_one_at_a_time_and_installs_the_same(vwheel, chain, tmp_path):
    links, counters = chain
    python = venv(tmp_path / "venv")
    r = vwheel("install", "-j", "1", "--python", python, "--no-index", "--find-links", links, "a",
               env={"VWHEEL_PROGRESS": "lines"})
    check_chain(python, counters, r)
    # One at a time: each build ends before the next begins.
    lines = [l.split(" (")[0] for l in r.err.splitlines() if l.startswith(("building ", "built "))]
    assert len(lines) == 4 and [l.split()[0] for l in lines] == ["building", "built", "building", "built"], r.err
