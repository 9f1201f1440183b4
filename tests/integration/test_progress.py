"""Progress of an index install: one plain `Downloaded NAME (SIZE)` line per file when stderr is
no terminal, and, with the terminal display forced (`VWHEEL_PROGRESS=bars`), download bars and
an `Unpacking` bar for a wheel with a big member, all erased at the end. The rate and ETA need
time to be measured and are not checked here (tests/unit/http/test_progress.cpp has them)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from served import start_serve
from test_install_large import MIB, file_sha256, make_big_wheel, run_measured, site_packages

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
WHEEL = "bigpkg-1.0-py3-none-any.whl"
SIZE = 64 * MIB + 5  # streamed (over the 8 MiB whole-member limit): progress chunk by chunk


@pytest.fixture
def served_big(vwheel_bin, tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _, digests = make_big_wheel(wheels, {"bigpkg/huge.bin": (SIZE, "sha256")})
    rc, err, _ = run_measured(vwheel_bin, ["index", "build", wheels, "-o", tmp_path / "site", "--quiet"], tmp_path)
    assert rc == 0, err
    served = start_serve(tmp_path, tmp_path / "site")
    try:
        yield served, digests["bigpkg/huge.bin"]
    finally:
        served.stop()


def install(vwheel_bin, tmp_path, served, name, env):
    venv = tmp_path / name
    subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True)
    # A cache of its own: the wheel is downloaded and unpacked, not linked from a cached copy.
    args = ["install", "--no-deps", "--index-url", served.index_url, "--cache-dir", tmp_path / f"cache-{name}",
            "--python", venv / "bin" / "python", "bigpkg"]
    out = subprocess.run([str(vwheel_bin), *map(str, args)], capture_output=True, text=True, env=env)
    return venv, out


def base_env(tmp_path):
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "xdg"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), "LANG": "C.UTF-8"}


def test_plain_lines_when_stderr_is_no_terminal(vwheel_bin, tmp_path, served_big):
    served, sha = served_big
    venv, out = install(vwheel_bin, tmp_path, served, "plain", base_env(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stderr and "Unpacking" not in out.stderr, out.stderr
    assert re.search(rf"^Downloaded {re.escape(WHEEL)} \([\d.]+ \w+\)$", out.stderr, re.M), out.stderr
    assert file_sha256(site_packages(venv) / "bigpkg" / "huge.bin") == sha


def test_forced_bars_show_unpacking_and_are_erased(vwheel_bin, tmp_path, served_big):
    served, sha = served_big
    env = base_env(tmp_path) | {"VWHEEL_PROGRESS": "bars"}
    venv, out = install(vwheel_bin, tmp_path, served, "bars", env)
    assert out.returncode == 0, out.stderr
    err = out.stderr
    # A bar for the unpacking, its total the wheel's uncompressed bytes (64 MiB and the small files).
    bar = re.search(rf"\x1b\[2KUnpacking {re.escape(WHEEL)}\s*\[[#-]+\] [\d.]+ \w+ / 64(\.0)? MiB", err)
    assert bar, repr(err)
    assert "Downloaded 1/1 files" in err, repr(err)
    # Bars instead of the plain line, not both.
    assert f"Downloaded {WHEEL} (" not in err, repr(err)
    # The last thing written erases the last frame and puts the cursor back.
    assert re.search(r"\x1b\[(\d+)A(\x1b\[2K\n)+\x1b\[\d+A\Z", err), repr(err[-200:])
    assert file_sha256(site_packages(venv) / "bigpkg" / "huge.bin") == sha


def test_quiet_prints_nothing_even_with_bars_forced(vwheel_bin, tmp_path, served_big):
    served, sha = served_big
    venv = tmp_path / "quiet"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = base_env(tmp_path) | {"VWHEEL_PROGRESS": "bars"}
    args = ["install", "-q", "--no-deps", "--index-url", served.index_url, "--cache-dir", tmp_path / "cache-q",
            "--python", venv / "bin" / "python", "bigpkg"]
    out = subprocess.run([str(vwheel_bin), *map(str, args)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stderr == "", repr(out.stderr)
    assert file_sha256(site_packages(venv) / "bigpkg" / "huge.bin") == sha


def test_a_wheel_file_gets_an_unpacking_bar_too(vwheel_bin, tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel, digests = make_big_wheel(wheels, {"bigpkg/huge.bin": (SIZE, "sha256")})
    venv = tmp_path / "local"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = base_env(tmp_path) | {"VWHEEL_PROGRESS": "bars"}
    args = ["install", wheel, "--cache-dir", tmp_path / "cache-local", "--python", venv / "bin" / "python"]
    out = subprocess.run([str(vwheel_bin), *map(str, args)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    err = out.stderr
    assert re.search(rf"\x1b\[2KUnpacking {re.escape(WHEEL)}\s*\[[#-]+\] [\d.]+ \w+ / 64(\.0)? MiB", err), repr(err)
    assert "Downloaded" not in err, repr(err)  # nothing was downloaded: no summary line
    assert re.search(r"\x1b\[(\d+)A(\x1b\[2K\n)+\x1b\[\d+A", err), repr(err[-200:])
    assert file_sha256(site_packages(venv) / "bigpkg" / "huge.bin") == digests["bigpkg/huge.bin"]
    # Without the forced bars (stderr is no terminal): no escape sequences at all.
    plain = subprocess.run([str(vwheel_bin), *map(str, args[:1]), "--force-reinstall", *map(str, args[1:])],
                           capture_output=True, text=True, env=base_env(tmp_path))
    assert plain.returncode == 0, plain.stderr
    assert "\x1b" not in plain.stderr, repr(plain.stderr)
