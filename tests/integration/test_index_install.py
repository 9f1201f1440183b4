"""`vwheel install` from package indexes, end to end: the example index of examples/make_example_index.py
(a torch-like project with CUDA/ROCm/CPU-level/null variants and variant-marker dependencies, PEP 825's
"Installation example") served by `vwheel index serve`, installed into fresh venvs for each target
profile in examples/profiles; pip against the same index; and downloads through faultserver.py
(dropped connections, 500s, truncated bodies, wrong bytes, slow answers)."""
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, _bin
from faultserver import FaultServer
from served import clean_env, start_serve
from wheelfactory import verify_record

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


# ---- the example index, served ----

@pytest.fixture(scope="session")
def example_index(vwheel_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("example-index")
    example.generate(out, str(vwheel_bin))
    return out


@pytest.fixture(scope="module")
def index(example_index, tmp_path_factory):
    served = start_serve(tmp_path_factory.mktemp("serve"), example_index / "site")
    yield served
    served.stop()


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


# ---- the example data itself (runs with any vwheel that has make-variant and index build) ----

def test_example_index_is_deterministic(vwheel_bin, tmp_path):
    # (Its build time is bench/index_build.sh's business, not a test's.)
    for d in ("a", "b"):
        example.generate(tmp_path / d, str(vwheel_bin))

    def files(root):
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
                if p.is_file() and ".vwheel" not in p.parts}

    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []
    # A second run into the same folder replaces what the first wrote.
    (tmp_path / "a" / "wheels" / "stale-1.0-py3-none-any.whl").write_bytes(b"x")
    example.generate(tmp_path / "a", str(vwheel_bin))
    assert files(tmp_path / "a") == b


def test_example_wheels(example_index):
    wheels = example_index / "wheels"
    names = sorted(p.name for p in wheels.glob("*.whl"))
    torch = [n for n in names if n.startswith("torch-2.13.0-")]
    assert sorted(torch) == sorted([wheel_file("torch")] + [wheel_file("torch", label) for label in TORCH_LABELS])
    assert sorted(n for n in names if n.startswith("numpy-2.3.2-")) == sorted(
        [wheel_file("numpy")] + [wheel_file("numpy", label) for label in ("x86_64_v2", "x86_64_v3", "x86_64_v4", "null")])
    for name in names:
        verify_record(wheels / name)
        with zipfile.ZipFile(wheels / name) as zf:
            metadata = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))).decode()
            has_variant_json = any(n.endswith(".dist-info/variant.json") for n in zf.namelist())
            label = name[:-4].split("-")[5] if name.count("-") == 5 else None
            assert has_variant_json == (label is not None), name
            if label:
                vj = json.loads(zf.read(next(n for n in zf.namelist() if n.endswith("variant.json"))))
                assert vj["$schema"].endswith("/peps/825/v0.1.1.json")
                assert list(vj["variants"]) == [label]
            if name.startswith("torch-2.13.0-"):
                if label:
                    assert 'Requires-Dist: fast-gemm; "nvidia :: sm_arch :: 120_real" in variant_properties' in metadata
                else:
                    assert "variant_" not in metadata and "Requires-Dist: nvidia-cudnn-cu12\n" in metadata
    merged = json.loads((example_index / "variants" / "torch-2.13.0-variants.json").read_text())
    assert set(merged["variants"]) == TORCH_LABELS
    assert merged["default-priorities"]["namespace"] == ["nvidia", "amd", "x86_64"]
    assert merged["variants"]["cu128"]["nvidia"]["cuda_version_lower_bound"] == ["12.8"]
    site = example_index / "site"
    page = json.loads((site / "simple" / "torch" / "index.json").read_text())
    assert {"torch-2.13.0-variants.json", "torch-2.12.0-variants.json"} <= {f["filename"] for f in page["files"]}


@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_engine_ranks_the_expected_variants(vwheel, example_index, profile):
    """The expectations agree with vwheel's ranking engine (independent of the installer)."""
    for project in ("torch", "numpy"):
        f = example_index / "variants" / f"{project}-{example.VERSIONS[project]}-variants.json"
        r = vwheel("rank", f, "--target", PROFILES / f"{profile}.json")
        assert r.rc == 0, r.err
        assert r.out.split()[0] == example.EXPECTED[profile]["variants"][project], r.out


@pytest.mark.parametrize("profile", ["cuda12.8-sm90", "x86_64-v3"])
def test_find_links_choice_matches(vwheel, example_index, venv, profile):
    """`--find-links` over the raw wheels chooses the same torch and numpy builds as the index install."""
    r = vwheel("install", "--find-links", example_index / "wheels", "torch", "numpy", "--python", venv,
               "--target", PROFILES / f"{profile}.json")
    assert r.rc == 0, r.err
    got = listed(vwheel, venv)
    for project, label in example.EXPECTED[profile]["variants"].items():
        assert got[project]["variant"] == label


def pip_install(tmp_path, index_url, target, *packages):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "pip-home"), "PIP_CONFIG_FILE": os.devnull,
           "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LANG": "C.UTF-8"}
    return subprocess.run([PY, "-m", "pip", "install", "--no-cache-dir", "--index-url", index_url,
                           "--target", str(target), *packages], capture_output=True, text=True, env=env, timeout=300)


def test_pip_gets_the_non_variant_wheels(example_index, tmp_path):
    if subprocess.run([PY, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip(f"no pip for {PY}")
    index = start_serve(tmp_path, example_index / "site")  # its own log: only pip's requests
    try:
        _pip_gets_the_non_variant_wheels(index, tmp_path)
    finally:
        index.stop()


def _pip_gets_the_non_variant_wheels(index, tmp_path):
    target = tmp_path / "target"
    r = pip_install(tmp_path, index.index_url, target, "torch")
    assert r.returncode == 0, r.stdout + r.stderr
    expected = example.EXPECTED["no-variants"]
    dist_infos = sorted(p.name for p in target.glob("*.dist-info"))
    assert dist_infos == sorted(f"{example.dist_name(p)}-{example.VERSIONS[p]}.dist-info" for p in expected["installed"])
    assert not list(target.glob("*.dist-info/variant.json"))
    assert "BUILD = 'non-variant'" in (target / "torch" / "__init__.py").read_text()
    log = index.log.read_text()
    assert "/files/torch/torch-2.13.0-py3-none-any.whl" in log
    assert not re.search(r"py3-none-any-\w+\.whl", log), "pip downloaded a variant wheel"


# ---- vwheel install from the index: the three (four) profiles ----

@pytest.mark.parametrize("profile", PROFILE_NAMES)
def test_profile_installs_the_expected_variants(vwheel, index, venv, profile):
    expected = example.EXPECTED[profile]
    r = install(vwheel, index, venv, "torch", "--target", PROFILES / f"{profile}.json")
    assert r.rc == 0, (r.out, r.err)
    chosen = choice_lines(r.out)
    assert sorted(chosen) == expected["installed"], r.out
    for project, label in expected["variants"].items():
        version, wheel, why = chosen[project]
        assert (version, wheel) == (example.VERSIONS[project], wheel_file(project, label)), r.out
        if label == "null":
            assert "null variant" in why, why
        else:
            assert f"variant {label}" in why, why
    installed = {norm(m.group(1)): m.group(2) for m in re.finditer(r"^installed (\S+) (\S+)", r.out, re.M)}
    assert installed == {p: example.VERSIONS[p] for p in expected["installed"]}, r.out
    got = assert_installed(vwheel, venv, expected)
    assert got["torch"]["installer"] == "vwheel"


def test_cuda_profile_details(vwheel, index, venv):
    """CUDA 12.8 + sm 9.0: cu128 (not cu130: it needs a CUDA 13 driver; above cu126), its CUDA 12
    dependencies, and not fast-gemm: the cu128 wheel lists sm_arch 120_real, which this GPU does not
    support, so the marker is false (PEP 825 installation example, step 7)."""
    r = install(vwheel, index, venv, "torch", "--target", CUDA)
    assert r.rc == 0, r.err
    _, wheel, why = choice_lines(r.out)["torch"]
    assert wheel == wheel_file("torch", "cu128")
    assert "nvidia :: cuda_version_lower_bound :: 12.8" in why
    got = listed(vwheel, venv)
    assert "fast-gemm" not in got and "nvidia-cudnn-cu13" not in got
    assert got["nvidia-cudnn-cu12"].get("variant") in (None, "")


def test_no_variants_gets_the_non_variant_wheels(vwheel, index, venv):
    r = install(vwheel, index, venv, "torch", "--target", CUDA, "--no-variants")
    assert r.rc == 0, r.err
    chosen = choice_lines(r.out)
    assert chosen["torch"][1] == wheel_file("torch") and "non-variant" in chosen["torch"][2]
    assert chosen["numpy"][1] == wheel_file("numpy")
    assert_installed(vwheel, venv, example.EXPECTED["no-variants"])


def test_variant_choice_among_compatible_labels(vwheel, index, venv):
    r = install(vwheel, index, venv, "torch", "--target", CUDA, "--variant", "torch=null")
    assert r.rc == 0, r.err
    assert_installed(vwheel, venv, example.EXPECTED["no-gpu"])  # the null torch needs no CUDA libraries


def test_variant_choice_of_a_lower_ranked_label(vwheel, index, venv):
    r = install(vwheel, index, venv, "torch", "--target", CUDA, "--variant", "torch=cu126")
    assert r.rc == 0, r.err
    got = listed(vwheel, venv)
    assert got["torch"]["variant"] == "cu126"
    assert "nvidia-cudnn-cu12" in got and "fast-gemm" not in got


@pytest.mark.parametrize("choice", ["torch=cu130", "torch=rocm72", "torch=nosuchlabel"])
def test_variant_choice_of_an_unsupported_label_is_refused(vwheel, index, venv, choice):
    before = tree(venv)
    r = install(vwheel, index, venv, "torch", "--target", CUDA, "--variant", choice)
    assert r.rc == 1, (r.out, r.err)
    assert r.err.startswith("vwheel: error: ") and r.err.count("\n") == 1, r.err
    assert choice.split("=")[1] in r.err
    assert tree(venv) == before


def test_dry_run_installs_nothing(vwheel, index, venv):
    before = tree(venv)
    r = install(vwheel, index, venv, "torch", "--target", CUDA, "--dry-run")
    assert r.rc == 0, r.err
    assert sorted(choice_lines(r.out)) == example.EXPECTED["cuda12.8-sm90"]["installed"]
    assert "installed " not in r.out
    assert tree(venv) == before


def test_report(vwheel, index, venv, tmp_path):
    report = tmp_path / "report.json"
    r = install(vwheel, index, venv, "torch", "--target", CUDA, "--report", report)
    assert r.rc == 0, r.err
    doc = json.loads(report.read_text())
    assert doc["version"] == 1 and isinstance(doc["target"], str) and doc["target"]
    entries = {norm(e["name"]): e for e in doc["install"]}
    expected = example.EXPECTED["cuda12.8-sm90"]
    assert sorted(entries) == expected["installed"]
    for project, e in entries.items():
        assert set(e) >= {"name", "version", "wheel", "url", "requested", "variant", "why", "other_variants"}, e
        assert e["version"] == example.VERSIONS[project]
        assert e["url"].startswith(index.base) and e["url"].split("#")[0].endswith("/" + e["wheel"])
        assert e["requested"] is (project == "torch")
        assert isinstance(e["why"], str) and e["why"]
    torch = entries["torch"]
    assert torch["wheel"] == wheel_file("torch", "cu128")
    assert torch["variant"]["label"] == "cu128"
    assert {"nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 90_real"} <= set(torch["variant"]["properties"])
    others = {o["label"]: o["reason"] for o in torch["other_variants"]}
    assert set(others) == TORCH_LABELS - {"cu128"}, others
    assert all(isinstance(v, str) and v for v in others.values()), others
    assert entries["numpy"]["variant"]["label"] == "null" and entries["numpy"]["variant"]["properties"] == []
    assert entries["filelock"]["variant"] is None and entries["filelock"]["other_variants"] == []
    # --dry-run --report: the same choices, nothing installed.
    venv2 = make_venv(vwheel, tmp_path / "venv2")
    r = install(vwheel, index, venv2, "torch", "--target", CUDA, "--report", tmp_path / "dry.json", "--dry-run")
    assert r.rc == 0, r.err
    dry = json.loads((tmp_path / "dry.json").read_text())
    assert [(e["name"], e["wheel"]) for e in dry["install"]] == [(e["name"], e["wheel"]) for e in doc["install"]]
    assert "torch" not in listed(vwheel, venv2)


def test_this_machine_gets_what_the_engine_ranks_first(vwheel, index, venv, example_index):
    """No --target: the machine's own providers (here usually no GPU: null, or x86_64_v3 where the CPU has it)."""
    ranked = vwheel("rank", example_index / "variants" / "torch-2.13.0-variants.json")
    assert ranked.rc == 0, ranked.err
    r = install(vwheel, index, venv, "torch")
    assert r.rc == 0, r.err
    assert listed(vwheel, venv)["torch"]["variant"] == ranked.out.split()[0]


def test_already_installed_is_kept_and_a_missing_project_is_an_error(vwheel, index, venv):
    assert install(vwheel, index, venv, "torch", "--target", CUDA).rc == 0
    before = tree(venv)
    r = install(vwheel, index, venv, "torch", "--target", CUDA)
    assert r.rc == 0, r.err
    assert tree(venv) == before
    r = install(vwheel, index, venv, "no-such-project", "--target", CUDA)
    assert r.rc == 1 and r.err.startswith("vwheel: error: ") and "no-such-project" in r.err, r.err
    r = install(vwheel, index, venv, "numpy<2", "torch", "--target", CUDA)
    assert r.rc == 1 and r.err.startswith("vwheel: error: ") and "numpy" in r.err, r.err
    assert tree(venv) == before


# ---- downloads through the fault server ----

@pytest.fixture
def faulty(example_index):
    with FaultServer(example_index / "site") as s:
        yield s


CU128_PATH = "/files/torch/" + wheel_file("torch", "cu128")


def fault_install(vwheel, server, python, cache, *extra):
    return vwheel("install", "torch", "--index-url", server.base + "/simple/", "--python", python,
                  "--target", CUDA, "--cache-dir", cache, "--retries", "2", "--timeout", "2", *extra)


def bad_copies(example_index, wheel):
    """Bytes a faulty server sent for `wheel` that must never be cached: halves and corrupted copies."""
    data = (example_index / "wheels" / wheel).read_bytes()
    half = len(data) // 2
    return data, {data[:half], data[:half] + bytes(b ^ 0xFF for b in data[half:])}


def check_cache(cache, example_index, finished=True):
    """The cache holds no bad file: no truncated or corrupted copy of any wheel anywhere; a file named
    like an index wheel holds exactly that wheel; a whole wheel stored under a path naming a wheel's
    sha256 (64 hex digits) has that sha256; no `*.part` next to cached wheels (none at all once an
    install has finished)."""
    wheels = {p.name: p.read_bytes() for p in (example_index / "wheels").glob("*.whl")}
    hashes = {hashlib.sha256(d).hexdigest() for d in wheels.values()}
    bad = set()
    for name in wheels:
        bad |= bad_copies(example_index, name)[1]
    if not Path(cache).exists():
        return
    wheel_dirs = set()
    for p in Path(cache).rglob("*"):
        if not p.is_file() or p.is_symlink():
            continue
        data = p.read_bytes()
        assert data not in bad, f"{p}: a truncated or corrupted download was cached"
        if p.name in wheels:
            assert data == wheels[p.name], f"{p}: not the index's {p.name}"
            wheel_dirs.add(p.parent)
        if data[:4] == b"PK\x03\x04":
            digest = hashlib.sha256(data).hexdigest()
            for part in p.parts:
                if part in hashes:
                    assert digest == part, f"{p}: stored under sha256 {part} but its sha256 is {digest}"
        if finished:
            assert not p.name.endswith(".part"), f"{p}: a partial download left after a finished install"
    for d in wheel_dirs:
        assert not list(d.glob("*.part")), f"partial downloads left in {d}"


FAULT_SEEN = {
    "drop": "Recv failure: Connection reset by peer",
    "500": "HTTP 500 Internal Server Error",
    "503": "HTTP 503 Service Unavailable",
    "truncate": "transfer closed with 801 bytes remaining to read",
    "slow": "stalled: nothing received for 2 s",
    "stall": "stalled: nothing received for 2 s",
}


@pytest.mark.parametrize("mode", sorted(FAULT_SEEN) + ["corrupt"])
def test_each_fault_reaches_the_installer(vwheel, faulty, venv, tmp_path, example_index, mode):
    """Without retries, each fault of the fault server is what the installer reports (so the retry
    tests below retry real faults); a corrupted copy fails its hash check and is fetched again
    (even with --retries 0: the hash check's own second fetch)."""
    f = faulty.fault(CU128_PATH, mode, times=1, delay=6)
    before = tree(venv)
    r = vwheel("install", "torch", "--index-url", faulty.base + "/simple/", "--python", venv,
               "--target", CUDA, "--cache-dir", tmp_path / "dlcache", "--retries", "0", "--timeout", "2")
    assert f.hits == 1
    if mode == "corrupt":
        assert r.rc == 0, (r.out, r.err)
        assert len(faulty.hits(CU128_PATH)) == 2, faulty.requests
        assert listed(vwheel, venv)["torch"]["variant"] == "cu128"
    else:
        assert r.rc == 1, (r.out, r.err)
        assert r.err.splitlines()[-1] == (f"vwheel: error: {faulty.base}{CU128_PATH}: {FAULT_SEEN[mode]} "
                                          "(gave up after 1 attempt)"), r.err
        assert len(faulty.hits(CU128_PATH)) == 1, faulty.requests
        assert tree(venv) == before
    check_cache(tmp_path / "dlcache", example_index, finished=mode == "corrupt")


@pytest.mark.parametrize("mode", ["drop", "500", "503", "truncate", "corrupt", "slow", "stall"])
def test_retries_then_success(vwheel, faulty, venv, tmp_path, example_index, mode):
    cache = tmp_path / "dlcache"
    f = faulty.fault(CU128_PATH, mode, times=1 if mode in ("slow", "stall", "corrupt") else 2, delay=6)
    r = fault_install(vwheel, faulty, venv, cache)
    assert r.rc == 0, (r.out, r.err)
    assert f.hits == f.times
    assert len(faulty.hits(CU128_PATH)) >= f.times + 1
    assert listed(vwheel, venv)["torch"]["variant"] == "cu128"
    check_cache(cache, example_index)


@pytest.mark.parametrize("path,must", [("/simple/torch/", True), ("/simple/sympy/", True),
                                        ("/files/torch/torch-2.13.0-variants.json", False),
                                        ("/files/torch/" + wheel_file("torch", "cu128") + ".metadata", False)])
def test_retries_on_pages_and_dependencies(vwheel, faulty, venv, tmp_path, example_index, path, must):
    f = faulty.fault(path, "500", times=2)
    dep = faulty.fault("*/" + wheel_file("numpy", "null"), "drop", times=1)
    r = fault_install(vwheel, faulty, venv, tmp_path / "dlcache")
    assert r.rc == 0, (r.out, r.err)
    assert dep.hits == 1
    if must:
        assert f.hits == 2
    assert_installed(vwheel, venv, example.EXPECTED["cuda12.8-sm90"])
    check_cache(tmp_path / "dlcache", example_index)


@pytest.mark.parametrize("mode", ["drop", "500", "truncate", "corrupt", "slow"])
def test_persistent_failure_changes_nothing(vwheel, faulty, venv, tmp_path, example_index, mode):
    # Something installed already, so "unchanged" is not just "empty".
    assert vwheel("install", "--find-links", example_index / "wheels", "filelock==3.12.0", "--python", venv).rc == 0
    before_list = vwheel("list", "--json", "--python", venv).out
    before = tree(venv)
    cache = tmp_path / "dlcache"
    faulty.fault(CU128_PATH, mode, times=None, delay=30)
    start = time.monotonic()
    r = fault_install(vwheel, faulty, venv, cache)
    assert r.rc == 1, (r.out, r.err)
    # Without a terminal, each finished download is a plain "Downloaded ..." line; the error is
    # one line, the last.
    lines = r.err.splitlines()
    assert lines and lines[-1].startswith("vwheel: error: "), r.err
    assert all(l.startswith("Downloaded ") for l in lines[:-1]), r.err
    assert wheel_file("torch", "cu128") in r.err or CU128_PATH in r.err, r.err
    assert "installed " not in r.out
    assert time.monotonic() - start < 60
    assert len(faulty.hits(CU128_PATH)) >= 2, faulty.requests  # retried
    assert vwheel("list", "--json", "--python", venv).out == before_list
    assert tree(venv) == before
    check_cache(cache, example_index, finished=False)
    # The cache is not poisoned: without the fault the same command succeeds.
    faulty.clear()
    r = fault_install(vwheel, faulty, venv, cache)
    assert r.rc == 0, r.err
    assert listed(vwheel, venv)["torch"]["variant"] == "cu128"
    check_cache(cache, example_index)


def test_persistent_page_failure(vwheel, faulty, venv, tmp_path):
    before = tree(venv)
    faulty.fault("/simple/sympy/", "500")
    r = fault_install(vwheel, faulty, venv, tmp_path / "dlcache")
    assert r.rc == 1, (r.out, r.err)
    assert r.err.startswith("vwheel: error: ") and r.err.count("\n") == 1 and "sympy" in r.err, r.err
    assert tree(venv) == before


def test_warm_cache_and_offline(vwheel, faulty, venv, tmp_path, example_index):
    cache = tmp_path / "dlcache"
    assert fault_install(vwheel, faulty, venv, cache).rc == 0
    check_cache(cache, example_index)
    venv2 = make_venv(vwheel, tmp_path / "venv2")
    faulty.clear()
    # Every wheel is cached: a second install downloads no wheel again.
    r = fault_install(vwheel, faulty, venv2, cache)
    assert r.rc == 0, r.err
    assert not [q for q in faulty.requests if q[1].endswith(".whl")], faulty.requests
    assert listed(vwheel, venv2).keys() == listed(vwheel, venv).keys()
    # --offline: no request at all.
    venv3 = make_venv(vwheel, tmp_path / "venv3")
    faulty.clear()
    r = fault_install(vwheel, faulty, venv3, cache, "--offline")
    assert r.rc == 0, r.err
    assert faulty.requests == []
    assert listed(vwheel, venv3)["torch"]["variant"] == "cu128"


# ---- caching and overlapping downloads with unpacking ----

def served_requests(served, settle=0.3):
    """The request lines `vwheel index serve --verbose` logged so far."""
    time.sleep(settle)  # the server logs after answering
    return [l for l in served.log.read_text().splitlines() if '"GET ' in l or '"HEAD ' in l]


def test_warm_install_asks_nothing_and_loads_no_libcurl(vwheel, index, tmp_path):
    # `vwheel index serve` lets clients reuse pages for 600 s and wheels/metadata for good; a warm
    # run then needs no request, so it never loads libcurl (LD_DEBUG=files lists what ld.so loads).
    trace = {"LD_DEBUG": "files"}
    r = install(vwheel, index, make_venv(vwheel, tmp_path / "v1"), "torch", "--target", CUDA, env=trace)
    assert r.rc == 0, r.err
    assert "libcurl.so.4" in r.err  # the check below can see it
    before = served_requests(index)
    r = install(vwheel, index, make_venv(vwheel, tmp_path / "v2"), "torch", "--target", CUDA, env=trace)
    assert r.rc == 0, r.err
    assert "libcurl" not in r.err
    assert served_requests(index) == before
    assert_installed(vwheel, tmp_path / "v2" / "bin" / "python", example.EXPECTED["cuda12.8-sm90"])
    # --refresh asks for every page again (answered 304: nothing changed).
    r = install(vwheel, index, make_venv(vwheel, tmp_path / "v3"), "torch", "--target", CUDA, "--refresh")
    assert r.rc == 0, r.err
    asked = served_requests(index)[len(before):]
    assert any('"GET /simple/torch/ ' in l and '" 304 ' in l for l in asked), asked
    assert not any(".whl " in l for l in asked), asked  # wheels and metadata stay cached by hash


def test_without_libcurl_the_first_request_says_so(vwheel, index, tmp_path):
    # A libcurl.so.4 that ld.so finds first (LD_LIBRARY_PATH) but cannot load stands for a machine
    # without libcurl4. Loading it early (install and lock start the load while they query the
    # interpreter) reports nothing by itself: the first request fails with the one line it always did.
    fake = tmp_path / "fakelib"
    fake.mkdir()
    (fake / "libcurl.so.4").write_bytes(b"not a shared library\n")
    env = {"LD_LIBRARY_PATH": str(fake)}
    venv = make_venv(vwheel, tmp_path / "venv")
    expected = re.compile(r"vwheel: error: cannot load libcurl\.so\.4 \(.*libcurl\.so\.4: .+\): install the libcurl4 package")
    r = install(vwheel, index, venv, "torch", "--target", CUDA, env=env)
    assert r.rc != 0
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert expected.fullmatch(r.err.strip()), r.err
    assert listed(vwheel, venv) == {}
    lock = tmp_path / "pylock.toml"
    r = vwheel("lock", "torch", "--index-url", index.index_url, "--python", PY, "-o", lock, env=env)
    assert r.rc != 0
    assert expected.fullmatch(r.err.strip()), r.err
    assert not lock.exists()
    # sync starts the load too when the lock's wheels are not downloaded yet.
    r = vwheel("lock", "torch", "--index-url", index.index_url, "--python", PY, "-o", lock)
    assert r.rc == 0, r.err
    r = vwheel("sync", lock, "--python", venv, "--target", CUDA, env=env)
    assert r.rc != 0
    assert expected.fullmatch(r.err.strip()), r.err
    assert listed(vwheel, venv) == {}


def test_index_serve_cache_control(example_index, tmp_path):
    import http.client

    def headers(served, path):
        c = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        try:
            c.request("GET", path)
            resp = c.getresponse()
            resp.read()
            return resp.status, resp.getheader("Cache-Control")
        finally:
            c.close()

    wheel = "/files/torch/" + wheel_file("torch", "cu128")
    variants_json = f"/files/torch/torch-{example.VERSIONS['torch']}-variants.json"
    served = start_serve(tmp_path, example_index / "site")
    try:
        assert headers(served, "/simple/") == (200, "max-age=600, public")
        assert headers(served, "/simple/torch/") == (200, "max-age=600, public")
        assert headers(served, variants_json) == (200, "max-age=600, public")
        assert headers(served, wheel) == (200, "max-age=31536000, immutable, public")
        assert headers(served, wheel + ".metadata") == (200, "max-age=31536000, immutable, public")
    finally:
        served.stop()
    served = start_serve(tmp_path, "--max-age", "0", example_index / "site", log_name="serve-0.log")
    try:
        assert headers(served, "/simple/torch/") == (200, "no-cache")
        assert headers(served, wheel) == (200, "max-age=31536000, immutable, public")
    finally:
        served.stop()


def test_wheels_are_unpacked_while_others_download(vwheel, faulty, venv, tmp_path):
    # The server holds torch's wheel until the test lets it go: meanwhile every other wheel,
    # already downloaded, must be checked and unpacked into the staging directory, and nothing may
    # be moved into place before torch is in. No time window: the test waits for the staging, looks,
    # then releases torch.
    hold = faulty.fault(CU128_PATH, "hold", times=1, delay=120)
    site = next(Path(venv).parents[1].glob("lib/python3*/site-packages"))
    others = {f"{example.dist_name(p)}-{example.VERSIONS[p]}.dist-info"
              for p in example.EXPECTED["cuda12.8-sm90"]["installed"] if p != "torch"}
    proc = subprocess.Popen([str(_bin()), "install", "torch", "--index-url", faulty.base + "/simple/", "--python",
                             str(venv), "--target", str(CUDA), "--cache-dir", str(tmp_path / "dlcache"), "--timeout", "150"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(tmp_path))

    def listing(pattern):
        try:
            return {p.name for p in site.glob(pattern)}
        except FileNotFoundError:  # a staging directory went away while listed
            return set()

    try:
        assert hold.arrived.wait(60), "torch's wheel was never requested"
        deadline = time.monotonic() + 60  # a guard against a hang, not a measurement
        staged = set()
        while not others <= staged and proc.poll() is None and time.monotonic() < deadline:
            staged = {n for n in listing(".vwheel-tmp-*/*-purelib/*") if n.endswith(".dist-info")}
            time.sleep(0.02)
        # torch is still held here, whatever the machine's speed.
        assert proc.poll() is None, "the installer finished without torch's wheel"
        assert others <= staged, (others - staged, staged)
        assert not any(n.startswith("torch") for n in staged), staged
        assert not listing("numpy*") | listing("nvidia_cudnn_cu12*") | listing("*.dist-info"), "moved into place early"
    finally:
        hold.release()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert listed(vwheel, venv)["torch"]["variant"] == "cu128"
    assert not list(site.glob(".vwheel-tmp-*"))


def test_extra_index_404_and_index_priority(vwheel, index, example_index, tmp_path):
    # Index A holds only torch's null-variant and non-variant wheels; the example index (B, given
    # with --extra-index-url) holds everything. A answers 404 for the other projects, which then
    # come from B; torch's variants come from A alone (the first source with compatible variants),
    # never merged with B's cu128, even for a CUDA machine.
    import shutil
    wheels = tmp_path / "a-wheels"
    wheels.mkdir()
    for label in ("null", None):
        shutil.copy(example_index / "wheels" / wheel_file("torch", label), wheels)
    r = vwheel("index", "build", wheels, "-o", tmp_path / "a-site", "--quiet")
    assert r.rc == 0, r.err
    venv = make_venv(vwheel, tmp_path / "venv")
    with FaultServer(tmp_path / "a-site") as a:
        r = vwheel("install", "torch", "--index-url", a.base + "/simple/", "--extra-index-url", index.index_url,
                   "--target", CUDA, "--python", venv, "--explain")
        assert r.rc == 0, r.err
        assert ("GET", "/simple/filelock/", None, 404) in a.requests, a.requests
    got = listed(vwheel, venv)
    assert got["torch"]["variant"] == "null", got["torch"]
    assert set(example.EXPECTED["cuda12.8-sm90"]["installed"]) - {"nvidia-cudnn-cu12", "nvidia-cublas-cu12"} <= set(got)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_interrupted_install_changes_nothing_and_leaves_no_staging(vwheel, faulty, venv, tmp_path, sig):
    # Interrupted while torch still downloads and the others are staged: nothing is in place.
    # SIGINT: the run stops its download and removes its staging itself (exit 130). SIGKILL (no
    # chance to clean up): the next run, holding the environment lock, removes the staging.
    faulty.fault(CU128_PATH, "slow", times=1, delay=30)
    site = next(Path(venv).parents[1].glob("lib/python3*/site-packages"))
    before = tree(venv)
    proc = subprocess.Popen([str(_bin()), "install", "torch", "--index-url", faulty.base + "/simple/", "--python",
                             str(venv), "--target", str(CUDA), "--cache-dir", str(tmp_path / "dlcache"), "--timeout", "60"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=clean_env(tmp_path))
    deadline = time.monotonic() + 25
    while time.monotonic() < deadline and not list(site.glob(".vwheel-tmp-*/*-purelib/numpy")):
        time.sleep(0.05)
    proc.send_signal(sig)
    rc = proc.wait(timeout=20)
    left = list(site.glob(".vwheel-tmp-*"))
    if sig == signal.SIGINT:
        assert rc == 130, rc
        assert not left, left
        assert tree(venv) == before
    else:
        assert left, "the killed run left no staging directory (the test interrupted too late?)"
        assert {k: v for k, v in tree(venv).items() if ".vwheel-tmp-" not in k} == before
    faulty.clear()
    r = fault_install(vwheel, faulty, venv, tmp_path / "dlcache")
    assert r.rc == 0, r.err
    assert not list(site.glob(".vwheel-tmp-*"))
    assert listed(vwheel, venv)["torch"]["variant"] == "cu128"


# ---- one selection: every choosing command takes the same options, with the same effect ----

SELECTION_OPTIONS = ["--target", "--config", "--enable-optional-providers", "--enable-optional-provider",
                     "--allow-python-provider", "--abi-dependency", "--variant", "--no-variants"]


@pytest.mark.parametrize("command", ["rank", "analyze-wheel", "install", "lock", "sync", "export"])
def test_every_choosing_command_has_the_selection_options(vwheel, command):
    r = vwheel(command, "--help")
    assert r.rc == 0, r.err
    missing = [o for o in SELECTION_OPTIONS if not re.search(rf"(^|[\s,]){re.escape(o)}([\s,=]|$)", r.out, re.M)]
    assert missing == [], (command, r.out)


def test_user_configuration_orders_install_sync_export_and_rank_alike(vwheel, index, example_index, venv, tmp_path):
    """--config used to reach only `rank`: a property priority that puts CUDA 12.6 first now makes
    install, sync, export and rank all choose cu126 on the CUDA 12.8 machine (cu128 without it)."""
    cfg = tmp_path / "cuda-12.6-first.toml"  # not ./variants.toml, which every run would read
    cfg.write_text('[property_priorities.nvidia]\ncuda_version_lower_bound = ["12.6"]\n')
    variants_json = example_index / "site" / "files" / "torch" / f"torch-{example.VERSIONS['torch']}-variants.json"
    r = vwheel("rank", variants_json, "--target", CUDA, "--config", cfg)
    assert r.rc == 0 and r.out.split() == ["cu126", "cu128", "null"], (r.out, r.err)
    r = install(vwheel, index, venv, "torch", "--target", CUDA, "--config", cfg)
    assert r.rc == 0, r.err
    assert choice_lines(r.out)["torch"][1] == wheel_file("torch", "cu126"), r.out
    assert listed(vwheel, venv)["torch"]["variant"] == "cu126"

    lock = tmp_path / "pylock.toml"
    r = vwheel("lock", "torch", "--index-url", index.index_url, "-o", lock, "--python", PY)
    assert r.rc == 0, r.err
    other = make_venv(vwheel, tmp_path / "other")
    r = vwheel("sync", lock, "--python", other, "--target", CUDA, "--config", cfg)
    assert r.rc == 0, r.err
    assert listed(vwheel, other)["torch"]["variant"] == "cu126"
    exported = vwheel("export", lock, "--target", CUDA, "--config", cfg, "--python", PY)
    plain = vwheel("export", lock, "--target", CUDA, "--python", PY)
    assert exported.rc == 0 and plain.rc == 0, (exported.err, plain.err)
    assert wheel_file("torch", "cu126") in exported.out and wheel_file("torch", "cu128") not in exported.out
    assert wheel_file("torch", "cu128") in plain.out


def test_rank_takes_the_variant_choices_too(vwheel, example_index):
    variants_json = example_index / "site" / "files" / "torch" / f"torch-{example.VERSIONS['torch']}-variants.json"
    r = vwheel("rank", variants_json, "--target", CUDA, "--variant", "torch=cu126")
    assert r.rc == 0 and r.out.split() == ["cu126", "cu128", "null"], (r.out, r.err)
    r = vwheel("rank", variants_json, "--target", CUDA, "--variant", "torch=cu130")
    assert r.rc == 1 and r.out == "", r.out
    assert r.err.startswith("vwheel: error: --variant torch=cu130: variant `cu130` of ") and r.err.count("\n") == 1, r.err
    assert "cuda_version_lower_bound` needs 13.0" in r.err
    r = vwheel("rank", variants_json, "--target", CUDA, "--variant", "torch")
    assert (r.rc, r.err) == (2, "vwheel: error: --variant `torch`: expected NAME=LABEL (e.g. torch=cu128)\n")
    r = vwheel("rank", variants_json, "--target", CUDA, "--no-variants", "--json")
    assert r.rc == 0 and json.loads(r.out)["order"] == [], r.out
