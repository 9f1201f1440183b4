"""What the tests that install from the example index share (examples/make_example_index.py: a
torch-like project with CUDA/ROCm/CPU-level/null variants and variant-marker dependencies): its
target profiles, names, and helpers to make venvs, install into them and look at the result. The
index itself, generated once per session and served per module, is conftest.py's `example_index`
and `index`."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "examples"))
import make_example_index as example  # noqa: E402

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
PROFILES = ROOT / "examples" / "profiles"
PROFILE_NAMES = ["no-gpu", "cuda12.8-sm90", "x86_64-v3", "rocm7.2-gfx942"]
CUDA = PROFILES / "cuda12.8-sm90.json"
TORCH_LABELS = {"cu130", "cu128", "cu126", "rocm72", "x86_64_v3", "null"}


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_file(project, label=None):
    return example.wheel_name(project, example.VERSIONS[project], label or None)


# ---- environments ----

def make_venv(vwheel, path):
    r = vwheel("venv", path, "--python", PY)
    assert r.rc == 0, r.err
    return path / "bin" / "python"


@pytest.fixture
def venv(vwheel, tmp_path):
    return make_venv(vwheel, tmp_path / "venv")


def listed(vwheel, python):
    r = vwheel("list", "--json", "--python", python)
    assert r.rc == 0, r.err
    return {norm(d["name"]): d for d in json.loads(r.out)}


def tree(python):
    """Every path of the venv (relative) with file contents, for before/after comparisons."""
    root = Path(python).parents[1]
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if ".vwheel.lock" in rel or "__pycache__" in rel:
            continue
        out[rel] = "<dir>" if p.is_dir() and not p.is_symlink() else (p.read_bytes() if p.is_file() else "<link>")
    return out


def build_of(python, module):
    out = subprocess.run([str(python), "-c", f"import {module}; print({module}.BUILD)"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def assert_installed(vwheel, python, expected):
    """`expected` is an entry of make_example_index.EXPECTED."""
    got = listed(vwheel, python)
    assert sorted(got) == expected["installed"], sorted(got)
    for project in expected["installed"]:
        assert got[project]["version"] == example.VERSIONS[project], (project, got[project])
    for project, label in expected["variants"].items():
        assert (got[project].get("variant") or "") == label, (project, got[project])
        assert build_of(python, example.dist_name(project)) == (label or "non-variant")
    for project in expected["without"]:
        assert project not in got
    return got


def choice_lines(out):
    """{project: (version, wheel, why)} from the `NAME VERSION: WHEELFILE (WHY)` lines."""
    lines = {}
    for line in out.splitlines():
        m = re.fullmatch(r"(\S+) (\S+): (\S+\.whl) \((.*)\)", line)
        if m:
            lines[norm(m.group(1))] = (m.group(2), m.group(3), m.group(4))
    return lines


def install(vwheel, index, python, *args, env=None):
    return vwheel("install", *args, "--index-url", index.index_url, "--python", python, env=env)
