"""`vwheel lock`, `vwheel sync` and `vwheel export` with PEP 751 `pylock.toml` and PEP 825's
`[packages.variants-json]`: one lock made without a GPU, synced for every target profile of
examples/profiles; read by Python's tomllib and by a small tool that knows nothing of variants."""
import datetime
import hashlib
import json
import os
import re
import subprocess
import tomllib
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from example_site import (CUDA, PROFILE_NAMES, PROFILES, PY, TORCH_LABELS, assert_installed, example, listed,
                          make_venv, norm, tree, wheel_file)
from wheelfactory import make_wheel

NUMPY_LABELS = {"x86_64_v2", "x86_64_v3", "x86_64_v4", "null"}


def run_vwheel(vwheel_bin, home, *args):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home / "home"),
           "XDG_CACHE_HOME": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "config"), "LANG": "C.UTF-8"}
    return subprocess.run([str(vwheel_bin), *map(str, args)], capture_output=True, text=True, env=env, cwd=home,
                          timeout=120)


@pytest.fixture(scope="module")
def lockfile(vwheel_bin, index, tmp_path_factory):
    """One lock of `torch`, made here (a machine without a GPU) with no --target: every variant."""
    d = tmp_path_factory.mktemp("lock")
    out = d / "pylock.toml"
    r = run_vwheel(vwheel_bin, d, "lock", "torch", "--index-url", index.index_url, "-o", out)
    assert r.returncode == 0, r.stderr
    return out


def load(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def wheel_filename(entry):
    """A `[[packages.wheels]]` entry's file name: `name`, else the last segment of `url` or `path`."""
    if entry.get("name"):
        return entry["name"]
    where = entry.get("url") or entry.get("path")
    return urllib.parse.unquote(urllib.parse.urlsplit(where).path.rsplit("/", 1)[-1])


def label_of(filename):
    parts = filename[:-4].split("-")
    return parts[5] if len(parts) == 6 else ""


def packages(doc):
    return {norm(p["name"]): p for p in doc["packages"]}


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def sync(vwheel, lock, python, *args):
    return vwheel("sync", lock, "--python", python, *args)


# ---- a tiny TOML writer, for locks the tests break on purpose ----

def _toml_key(k):
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string: JSON's escapes are TOML's
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def dump_toml(doc):
    """Top-level scalars, then [table] and [[array of tables]] sections whose values are inline."""
    lines = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in doc.items()
             if not isinstance(v, dict) and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))]
    for k, v in doc.items():
        if isinstance(v, dict):
            lines += ["", f"[{_toml_key(k)}]"] + [f"{_toml_key(a)} = {_toml_value(b)}" for a, b in v.items()]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines += ["", f"[[{_toml_key(k)}]]"] + [f"{_toml_key(a)} = {_toml_value(b)}" for a, b in item.items()]
    return "\n".join(lines) + "\n"


PEP825_EXAMPLE = """
lock-version = "1.0"
created-by = "uv"
requires-python = ">=3.14"

[[packages]]
name = "numpy"
version = "2.3.4"
index = "https://pypi.anaconda.org/mgorny/simple"
wheels = [
    { url = "https://pypi.anaconda.org/mgorny/simple/numpy/2.3.4/numpy-2.3.4-cp314-cp314-linux_x86_64-openblas.whl", hashes = {} },
    { url = "https://example.org/numpy-2.3.4-cp314-cp314-linux_x86_64.whl", upload-time = 2025-01-02T03:04:05Z, size = 10, hashes = { sha256 = "ab" } },
]

[packages.variants-json]
"$schema" = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"

[packages.variants-json.default-priorities]
namespace = [ "x86_64", "aarch64", "blas_lapack" ]

[packages.variants-json.variants]
null = { }
x86_64_v3_openblas = { "blas_lapack" = { "library" = ["openblas"]}, "x86_64" = { "level" = ["v3"]}  }

[[packages]]
name = "caf\u00e9"
version = "1"
"""


def test_the_pep_example_and_its_rewrite_read_the_same(vwheel, tmp_path):
    # The PEP's example (inline tables, a date, escapes, a non-ASCII name) rewritten by the writer
    # the broken-lock tests use reads back the same, and vwheel finds the same problems in both:
    # its second wheel's made-up sha256 and two more.
    doc = tomllib.loads(PEP825_EXAMPLE)
    assert tomllib.loads(dump_toml(doc)) == doc
    for name, text in (("pep.toml", PEP825_EXAMPLE), ("rewritten.toml", dump_toml(doc))):
        path = tmp_path / name
        path.write_text(text)
        r = vwheel("export", path, "--format", "requirements.txt")
        assert r.rc == 1 and r.out == "", (r.out, r.err)
        assert r.err == (f"vwheel: error: {path}: package `numpy` `2.3.4`: wheels[1]: hashes.`sha256`: "
                         "expected 64 hex digits, got 2 (and 2 more problems)\n"), r.err


# ---- the lock file ----

def test_lock_lists_every_variant_with_hashes(lockfile, example_index, index):
    doc = load(lockfile)
    assert doc["lock-version"] == "1.0"
    assert "vwheel" in doc.get("created-by", "")
    pkgs = packages(doc)
    # Everything any machine may need: the variant-marker dependencies of every torch variant too.
    needed = set(example.ALWAYS) | set(example.VARIANT_ONLY_DEPS)
    assert needed <= set(pkgs), sorted(pkgs)
    for name in needed:
        assert pkgs[name]["version"] == example.VERSIONS[name], (name, pkgs[name]["version"])
    wheels_dir = example_index / "wheels"
    for name, p in pkgs.items():
        assert p.get("wheels"), f"{name}: no wheels"
        for w in p["wheels"]:
            filename = wheel_filename(w)
            assert set(w["hashes"]) >= {"sha256"}, (name, w)
            assert w["hashes"]["sha256"] == sha256(wheels_dir / filename), (name, filename)
            if "url" in w:
                assert w["url"].startswith(index.base), w["url"]
            if "size" in w:
                assert w["size"] == (wheels_dir / filename).stat().st_size
    merged = {p: json.loads((example_index / "variants" / f"{p}-{example.VERSIONS[p]}-variants.json").read_text())
              for p in ("torch", "numpy")}
    for project, labels in (("torch", TORCH_LABELS), ("numpy", NUMPY_LABELS)):
        files = {wheel_filename(w) for w in pkgs[project]["wheels"]}
        assert files == {wheel_file(project)} | {wheel_file(project, label) for label in labels}, files
        vj = pkgs[project]["variants-json"]
        assert vj["$schema"] == merged[project]["$schema"]
        assert vj["default-priorities"]["namespace"] == merged[project]["default-priorities"]["namespace"]
        assert vj["variants"] == merged[project]["variants"]  # every label kept whole
    for name in needed - {"torch", "numpy"}:
        assert "variants-json" not in pkgs[name], name
        assert [label_of(wheel_filename(w)) for w in pkgs[name]["wheels"]] == [""]


def test_lock_from_a_requirements_file_is_the_same(vwheel, lockfile, index, tmp_path):
    (tmp_path / "req.txt").write_text("# the example\ntorch\n")
    r = vwheel("lock", "-r", tmp_path / "req.txt", "--index-url", index.index_url, "-o", tmp_path / "pylock.toml")
    assert r.rc == 0, r.err
    assert load(tmp_path / "pylock.toml")["packages"] == load(lockfile)["packages"]


def test_lock_for_targets_keeps_only_usable_wheels(vwheel, index, tmp_path):
    r = vwheel("lock", "torch", "--index-url", index.index_url, "-o", tmp_path / "nogpu.toml",
               "--target", PROFILES / "no-gpu.json")
    assert r.rc == 0, r.err
    torch = packages(load(tmp_path / "nogpu.toml"))["torch"]
    labels = {label_of(wheel_filename(w)) for w in torch["wheels"]}
    assert "null" in labels and labels <= {"null", ""}, labels
    assert set(torch["variants-json"]["variants"]) >= labels - {""}
    r = vwheel("lock", "torch", "--index-url", index.index_url, "-o", tmp_path / "two.toml",
               "--target", CUDA, "--target", PROFILES / "x86_64-v3.json")
    assert r.rc == 0, r.err
    pkgs = packages(load(tmp_path / "two.toml"))
    labels = {label_of(wheel_filename(w)) for w in pkgs["torch"]["wheels"]}
    assert {"cu128", "x86_64_v3", "null"} <= labels and not {"cu130", "rocm72"} & labels, labels
    for label in labels - {""}:
        assert label in pkgs["torch"]["variants-json"]["variants"]
    assert "nvidia-cudnn-cu12" in pkgs and "onednn" in pkgs


# ---- sync ----

@pytest.fixture
def venv(vwheel, tmp_path):
    return make_venv(vwheel, tmp_path / "venv")


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_sync_each_profile(vwheel, lockfile, venv, profile):
    r = sync(vwheel, lockfile, venv, "--target", PROFILES / f"{profile}.json")
    assert r.rc == 0, (r.out, r.err)
    assert_installed(vwheel, venv, example.EXPECTED[profile])


def test_sync_twice_changes_nothing(vwheel, lockfile, venv):
    assert sync(vwheel, lockfile, venv, "--target", CUDA).rc == 0
    before, before_list = tree(venv), listed(vwheel, venv)
    r = sync(vwheel, lockfile, venv, "--target", CUDA)
    assert r.rc == 0, r.err
    assert "installed " not in r.out and "removed " not in r.out, r.out
    assert tree(venv) == before and listed(vwheel, venv) == before_list


def test_sync_switches_variants_and_removes_what_is_not_selected(vwheel, lockfile, venv, tmp_path):
    assert sync(vwheel, lockfile, venv, "--target", PROFILES / "no-gpu.json").rc == 0
    # Something the lock does not list, installed by hand.
    extra = make_wheel(tmp_path, "stray_pkg-1.0-py3-none-any.whl")
    assert vwheel("install", extra, "--python", venv).rc == 0
    assert "stray-pkg" in listed(vwheel, venv)
    r = sync(vwheel, lockfile, venv, "--target", CUDA)
    assert r.rc == 0, r.err
    assert_installed(vwheel, venv, example.EXPECTED["cuda12.8-sm90"])  # stray-pkg removed, torch now cu128
    r = sync(vwheel, lockfile, venv, "--target", PROFILES / "no-gpu.json")
    assert r.rc == 0, r.err
    assert_installed(vwheel, venv, example.EXPECTED["no-gpu"])  # the CUDA libraries removed again


def test_sync_dry_run_and_report(vwheel, lockfile, venv, tmp_path):
    before = tree(venv)
    r = sync(vwheel, lockfile, venv, "--target", CUDA, "--dry-run", "--report", tmp_path / "r.json")
    assert r.rc == 0, r.err
    assert tree(venv) == before
    assert wheel_file("torch", "cu128") in r.out
    doc = json.loads((tmp_path / "r.json").read_text())
    assert sorted(norm(e["name"]) for e in doc["install"]) == example.EXPECTED["cuda12.8-sm90"]["installed"]
    torch = next(e for e in doc["install"] if norm(e["name"]) == "torch")
    assert torch["variant"]["label"] == "cu128" and torch["wheel"] == wheel_file("torch", "cu128")


def test_a_variant_unaware_tool_can_use_the_lock(lockfile, tmp_path):
    """A tool that knows PEP 751 but not variants: it ignores [packages.variants-json] and every wheel
    whose file name has more than 5 dash-separated parts, checks the sha256 and installs with pip."""
    if subprocess.run([PY, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip(f"no pip for {PY}")
    doc = load(lockfile)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    files = []
    for p in doc["packages"]:
        plain = [w for w in p["wheels"] if len(wheel_filename(w)[:-4].split("-")) == 5]
        assert len(plain) == 1, (p["name"], [wheel_filename(w) for w in p["wheels"]])
        w = plain[0]
        if "url" in w:
            data = urllib.request.urlopen(w["url"], timeout=30).read()
        else:
            data = (Path(lockfile).parent / w["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == w["hashes"]["sha256"]
        f = downloads / wheel_filename(w)
        f.write_bytes(data)
        files.append(str(f))
    target = tmp_path / "target"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "pip-home"), "PIP_CONFIG_FILE": os.devnull,
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LANG": "C.UTF-8"}
    r = subprocess.run([PY, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target), *files],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "BUILD = 'non-variant'" in (target / "torch" / "__init__.py").read_text()
    assert "BUILD = 'non-variant'" in (target / "numpy" / "__init__.py").read_text()
    assert not list(target.glob("*.dist-info/variant.json"))
    out = subprocess.run([PY, "-c", "import torch, numpy, sympy, mpmath, filelock, typing_extensions; print(torch.__version__)"],
                         capture_output=True, text=True, env={"PYTHONPATH": str(target)})
    assert out.stdout.strip() == example.VERSIONS["torch"], out.stderr


# ---- broken locks: a clear error, nothing installed ----

def _wheel(pkgs, project, label):
    return next(w for w in pkgs[project]["wheels"] if wheel_filename(w) == wheel_file(project, label))


def _missing_hash_of_a_dependency(doc):
    del _wheel(packages(doc), "filelock", None)["hashes"]


def _missing_hash_of_the_selected_variant(doc):
    del _wheel(packages(doc), "torch", "cu128")["hashes"]


def _wrong_hash(doc):
    _wheel(packages(doc), "torch", "cu128")["hashes"]["sha256"] = "0" * 64


def _lying_size(doc):
    # The right sha256, a size that is not the file's: downloaded, then refused (PEP 751: validate
    # the file size and hash).
    _wheel(packages(doc), "torch", "cu128")["size"] += 1


def _unknown_label(doc):
    del packages(doc)["torch"]["variants-json"]["variants"]["cu128"]


def _priorities_miss_a_namespace(doc):
    packages(doc)["torch"]["variants-json"]["default-priorities"]["namespace"] = ["x86_64"]


def _property_values_not_a_list(doc):
    packages(doc)["torch"]["variants-json"]["variants"]["cu128"]["nvidia"]["sm_arch"] = "90_real"


def _lock_version_2(doc):
    doc["lock-version"] = "2.0"


def test_the_rewritten_lock_syncs_like_the_original(vwheel, lockfile, venv, tmp_path):
    """The broken locks below are written by dump_toml: unbroken, such a lock must install exactly
    what the original does, so that their failures come from the breakage and not the writer."""
    doc = load(lockfile)
    rewritten = tmp_path / "pylock.toml"
    rewritten.write_text(dump_toml(doc))
    assert tomllib.loads(rewritten.read_text()) == doc
    original = sync(vwheel, lockfile, venv, "--target", CUDA, "--dry-run", "--report", tmp_path / "a.json")
    assert original.rc == 0, original.err
    r = sync(vwheel, rewritten, venv, "--target", CUDA, "--dry-run", "--report", tmp_path / "b.json")
    assert r.rc == 0, r.err
    assert r.out == original.out
    assert json.loads((tmp_path / "b.json").read_text()) == json.loads((tmp_path / "a.json").read_text())
    r = sync(vwheel, rewritten, venv, "--target", CUDA)
    assert r.rc == 0, (r.out, r.err)
    assert_installed(vwheel, venv, example.EXPECTED["cuda12.8-sm90"])


@pytest.mark.parametrize("breakage", [_missing_hash_of_a_dependency, _missing_hash_of_the_selected_variant, _wrong_hash,
                                      _lying_size, _unknown_label, _priorities_miss_a_namespace, _property_values_not_a_list,
                                      _lock_version_2], ids=lambda f: f.__name__.strip("_"))
def test_a_broken_lock_installs_nothing(vwheel, lockfile, venv, tmp_path, breakage):
    doc = load(lockfile)
    breakage(doc)
    broken = tmp_path / "pylock.toml"
    broken.write_text(dump_toml(doc))
    assert tomllib.loads(broken.read_text()) == doc
    before = tree(venv)
    r = sync(vwheel, broken, venv, "--target", CUDA)
    assert r.rc == 1, (breakage.__name__, r.out, r.err)
    # Plain "Downloaded ..." lines may come first (no terminal); the error is one line, the last.
    lines = r.err.splitlines()
    assert lines and lines[-1].startswith("vwheel: error: "), r.err
    assert all(l.startswith("Downloaded ") for l in lines[:-1]), r.err
    assert "installed " not in r.out
    assert tree(venv) == before
    if breakage is _lock_version_2:
        assert lines[-1] == f"vwheel: error: {broken}: unsupported lock-version `2.0`: vwheel reads 1.x", r.err
    if breakage is _lying_size:
        assert "size" in lines[-1] and "packages[" in lines[-1], r.err
    if breakage is _unknown_label:
        assert lines[-1] == (f"vwheel: error: {broken}: package `torch` `2.13.0`: wheel `torch-2.13.0-py3-none-any-cu128.whl`: "
                             "unknown variant label `cu128` (not in variants-json.variants)"), r.err


# ---- export ----

def parse_requirements(text):
    """{name: (version, [sha256...])} of `name==version --hash=sha256:...` lines (continuations joined)."""
    out = {}
    for line in text.replace("\\\n", " ").splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+?)((?:\s+--hash=sha256:[0-9a-f]{64})+)", line)
        assert m, f"not a `name==version --hash=sha256:...` line: {line!r}"
        out[norm(m.group(1))] = (m.group(2), re.findall(r"sha256:([0-9a-f]{64})", m.group(3)))
    return out




@pytest.mark.parametrize("profile", ["cuda12.8-sm90", "no-gpu", "x86_64-v3"])
def test_export_requirements(vwheel, lockfile, example_index, tmp_path, profile):
    out = tmp_path / "requirements.txt"
    r = vwheel("export", lockfile, "--format", "requirements.txt", "--target", PROFILES / f"{profile}.json", "-o", out)
    assert r.rc == 0, r.err
    reqs = parse_requirements(out.read_text())
    expected = example.EXPECTED[profile]
    assert sorted(reqs) == expected["installed"]
    wheels = example_index / "wheels"
    for name, (version, hashes) in reqs.items():
        assert version == example.VERSIONS[name]
        label = expected["variants"].get(name, "")
        assert hashes == [sha256(wheels / wheel_file(name, label))], name
    r2 = vwheel("export", lockfile, "--format", "requirements.txt", "--target", PROFILES / f"{profile}.json")
    assert r2.rc == 0 and parse_requirements(r2.out) == reqs


def test_export_refuses_an_unknown_format(vwheel, lockfile):
    r = vwheel("export", lockfile, "--format", "setup.cfg")
    assert r.rc in (1, 2) and r.err.startswith("vwheel: error: "), r.err
