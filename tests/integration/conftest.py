"""Integration tests: run the real `vwheel` binary against real files.

VWHEEL_BIN points at the binary (default: build/vwheel); VWHEEL_SHARED_DIR at the reference
material (default: ../shared next to the checkout). Tests that need it skip when it is absent.
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bin():
    return Path(os.environ.get("VWHEEL_BIN", ROOT / "build" / "vwheel"))


@pytest.fixture(scope="session")
def vwheel_bin():
    b = _bin()
    if not b.exists():
        pytest.fail(f"vwheel binary not found at {b}; build it first (cmake --build build)")
    return b


@pytest.fixture(scope="session")
def shared():
    d = Path(os.environ.get("VWHEEL_SHARED_DIR", ROOT.parent / "shared"))
    if not d.is_dir():
        pytest.skip(f"reference data not found at {d} (set VWHEEL_SHARED_DIR)")
    return d


@pytest.fixture(scope="session")
def examples():
    return ROOT / "examples"


class Run:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def vwheel(vwheel_bin, tmp_path):
    """Runs vwheel with a clean environment (no user config, no cache from the host)."""

    def run(*args, env=None, cwd=None, input=None):
        e = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path / "home"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "LANG": "C.UTF-8",
        }
        if env:
            e.update(env)
        proc = subprocess.run(
            [str(vwheel_bin), *map(str, args)],
            capture_output=True,
            text=True,
            env=e,
            cwd=cwd or tmp_path,
            input=input,
            timeout=120,
        )
        return Run(proc)

    return run


# ---- the example index (examples/make_example_index.py), for the tests that install from it ----

@pytest.fixture(scope="session")
def example_index(vwheel_bin, tmp_path_factory):
    """Generated once per session: its wheels, variants.json files and static site."""
    from example_site import example  # (imports this module)

    out = tmp_path_factory.mktemp("example-index")
    example.generate(out, str(vwheel_bin))
    return out


@pytest.fixture(scope="module")
def index(example_index, tmp_path_factory):
    """The example index served by `vwheel index serve`, one server per test module."""
    from served import start_serve  # (imports this module)

    served = start_serve(tmp_path_factory.mktemp("serve"), example_index / "site")
    yield served
    served.stop()
