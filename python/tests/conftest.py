"""Tests of the installed `vwheel` package against the `vwheel` command (the same engine).

VWHEEL_BIN names the command (default: `vwheel` on PATH, which the wheel installs beside the
interpreter); VWHEEL_SHARED_DIR the reference material (default: ../shared next to the checkout).
Tests that need the reference material skip when it is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli_path() -> str:
    if os.environ.get("VWHEEL_BIN"):
        return os.environ["VWHEEL_BIN"]
    found = shutil.which("vwheel", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    assert found, "no vwheel command: set VWHEEL_BIN or install the wheel"
    return found


@pytest.fixture(scope="session")
def cli():
    """Runs the vwheel command; returns the CompletedProcess (text)."""
    binary = cli_path()

    def run(*args, check=True):
        proc = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise AssertionError(f"vwheel {' '.join(map(str, args))}: exit {proc.returncode}: {proc.stderr}")
        return proc

    return run


@pytest.fixture(scope="session")
def shared():
    d = Path(os.environ.get("VWHEEL_SHARED_DIR", ROOT.parent / "shared"))
    if not d.is_dir():
        pytest.skip(f"reference data not found at {d} (set VWHEEL_SHARED_DIR)")
    return d


@pytest.fixture(scope="session")
def profiles():
    return sorted((ROOT / "examples" / "profiles").glob("*.json"))


def make_wheel(directory: Path, name: str = "demo", version: str = "1.0") -> Path:
    """A minimal valid pure-Python wheel."""
    import base64
    import hashlib
    import zipfile

    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": b"VALUE = 1\n",
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    out = directory / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)
    return out
