"""Universal locks of a torch-shaped index (issue 15): the variants of one project pin different
versions of other variant projects, and dependencies carry environment markers, so `vwheel lock`
resolves in forks and the lock holds several versions of one project with `dependencies` edges.
For each target profile, `install` from the index and `sync` of the one lock give exactly the
expected distributions, versions and labels; a second sync changes nothing; a lock that misses an
entry the chosen variant needs is refused before anything changes."""
import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT
from example_site import PY, make_venv, norm, tree

import sys
sys.path.insert(0, str(ROOT / "examples"))
import make_example_index as example  # noqa: E402

NV = [f"nv-lib{c}" for c in "abcdefghij"]  # ten runtime libraries, themselves variant projects
NV_VERSION = {"cu126": "12.6.0", "cu128": "12.8.0", "cu130": "13.0.0"}
CU130 = ["nvidia :: cuda_version_lower_bound :: 13.0", "nvidia :: sm_arch :: 90_real", "nvidia :: sm_arch :: 100_real"]
CU128 = ["nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 80_real", "nvidia :: sm_arch :: 90_real",
         "nvidia :: sm_arch :: 100_real"]
CU126 = ["nvidia :: cuda_version_lower_bound :: 12.6", "nvidia :: sm_arch :: 61_real", "nvidia :: sm_arch :: 80_real",
         "nvidia :: sm_arch :: 90_real"]
ROCM72 = ["amd :: rocm_version :: 7.2", "amd :: gfx_arch :: gfx942"]
XPU = ["intel :: device_ip :: 12.60.7"]
GPU_LABELS = [("cu130", CU130), ("cu128", CU128), ("cu126", CU126), ("rocm72", ROCM72), ("xpu", XPU), ("null", None)]
NAMESPACES = ["nvidia", "amd", "intel", "x86_64"]
PROVIDERS = dict(example.PROVIDERS, intel=("intel-variant-provider>=0.0.2",
                                            "intel_variant_provider.plugin:IntelVariantPlugin"))

TORCH_COMMON = ["filelock", "typing-extensions>=4.8", "numpyish>=2", 'winonly; sys_platform == "win32"',
                'oldpy; python_version < "3.12"']
TORCH_DEPS = TORCH_COMMON + [
    f'{lib}=={NV_VERSION[label]}; variant_label == "{label}"' for label in NV_VERSION for lib in NV] + [
    'triton==3.5.0; "nvidia" in variant_namespaces',
    'rocm-triton==3.5.0; variant_label == "rocm72"',
    'xpu-runtime==2025.2; variant_label == "xpu"',
]
PLAIN = {"filelock": ["3.18.0"], "typing-extensions": ["4.7.1", "4.14.0"], "triton": ["3.5.0"],
         "rocm-triton": ["3.5.0"], "xpu-runtime": ["2025.2"], "winonly": ["1.0"], "oldpy": ["1.0"],
         "numpyish": ["1.26.4"]}


def make_variant(vwheel_bin, build, out, project, version, label, props, requires, namespaces):
    d = build / f"{project}-{version}-{label}"
    d.mkdir()
    base = example.plain_wheel(d, project, version, requires, label)
    pyproject = build / f"{project}-{version}-{label}.toml"
    text = f'[project]\nname = "{project}"\nversion = "{version}"\n\n[variant.default-priorities]\n'
    text += "namespace = [" + ", ".join(f'"{n}"' for n in namespaces) + "]\n"
    for ns in namespaces:
        if ns == "blas":  # ahead-of-time: the package's static properties are the answer, no plugin
            text += '\n[variant.providers.blas]\ninstall-time = false\n'
            text += '\n[variant.static-properties.blas]\nlibrary = ["openblas", "mkl"]\n'
            continue
        req, api = PROVIDERS[ns]
        text += f'\n[variant.providers.{ns}]\nrequires = ["{req}"]\nplugin-api = "{api}"\n'
    pyproject.write_text(text)
    cmd = [vwheel_bin, "make-variant", base, "-o", out, "--pyproject", pyproject, "--format", example.SCHEMA_FORMAT,
           "-j", "1"]
    if props is None:
        cmd.append("--null")
    else:
        for p in props:
            cmd += ["-p", p]
        cmd += ["--label", label]
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.fixture(scope="module")
def links(vwheel_bin, tmp_path_factory):
    """A --find-links directory: the wheels and one `*-variants.json` per variant version."""
    root = tmp_path_factory.mktemp("forks")
    out, build = root / "links", root / "build"
    out.mkdir()
    build.mkdir()
    for label, props in GPU_LABELS:
        make_variant(vwheel_bin, build, out, "torch", "2.9.0", label, props, TORCH_DEPS, NAMESPACES[:3])
        make_variant(vwheel_bin, build, out, "torchvision", "0.24.0", label, props, ["torch==2.9.0"], NAMESPACES[:3])
    for lib in NV:
        for version, labels in (("12.6.0", ["cu12"]), ("12.8.0", ["cu12"]), ("13.0.0", ["cu12", "cu13"])):
            for label in labels:
                props = [f"nvidia :: cuda_version_lower_bound :: {label[2:]}.0"]
                make_variant(vwheel_bin, build, out, lib, version, label, props, [], ["nvidia"])
    # numpy-like: CPU level and BLAS library variants (the BLAS namespace is ahead-of-time in the
    # wheels' pyproject; the PEP 825 index file carries no providers, so profiles state `blas`).
    for label, props in (("x86_64_v3", ["x86_64 :: level :: v3", "blas :: library :: openblas"]),
                         ("v3mkl", ["x86_64 :: level :: v3", "blas :: library :: mkl"]), ("null", None)):
        make_variant(vwheel_bin, build, out, "numpyish", "2.3.2", label, props, [], ["x86_64", "blas"])
    for project, versions in PLAIN.items():
        for version in versions:
            example.plain_wheel(out, project, version, ["filelock"] if project == "triton" else [], "non-variant")
    r = subprocess.run([str(vwheel_bin), "generate-index-json", out, "-o", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    shutil.rmtree(build)
    return out


def profile(tmp_path_factory, name, properties, python="3.12", platform="linux"):
    base = json.loads((example.ROOT / "examples" / "profiles" / "no-gpu.json").read_text())
    base["properties"] = properties
    base["environment"].update(python_version=python, python_full_version=f"{python}.0")
    if platform == "win32":
        base["environment"].update(sys_platform="win32", platform_system="Windows", os_name="nt",
                                   platform_machine="AMD64")
    path = tmp_path_factory.getbasetemp() / f"profile-{name}.json"
    path.write_text(json.dumps(base))
    return path


def cuda(lower, sm):
    majors = {"12.8": [f"12.{m}" for m in range(8, -1, -1)] + ["12"],
              "13.0": ["13.0", "13"] + [f"12.{m}" for m in range(9, -1, -1)] + ["12"]}[lower]
    return {"nvidia": [{"multi_value": False, "name": "cuda_version_lower_bound", "values": majors},
                       {"multi_value": True, "name": "sm_arch", "values": [f"{sm}_real"]}]}


COMMON = {"torch": "2.9.0", "torchvision": "0.24.0", "filelock": "3.18.0", "typing-extensions": "4.14.0"}


def expect(gpu, numpy="null", extra=()):
    """{project: (version, label)} for torch and torchvision on a GPU label."""
    out = {p: (v, "") for p, v in COMMON.items()}
    out["torch"] = out["torchvision"] = None
    out["torch"], out["torchvision"] = ("2.9.0", gpu), ("0.24.0", gpu)
    out["numpyish"] = ("2.3.2", numpy)
    if gpu in NV_VERSION:
        nv_label = "cu13" if gpu == "cu130" else "cu12"
        out.update({lib: (NV_VERSION[gpu], nv_label) for lib in NV})
        out["triton"] = ("3.5.0", "")
    if gpu == "rocm72":
        out["rocm-triton"] = ("3.5.0", "")
    if gpu == "xpu":
        out["xpu-runtime"] = ("2025.2", "")
    for p in extra:
        out[p] = ("1.0", "")
    return out


CASES = {
    "no-gpu": ({}, {}, expect("null")),
    "x86_64-v3": ({"x86_64": [{"multi_value": False, "name": "level", "values": ["v3", "v2", "v1"]}],
                   "blas": [{"multi_value": False, "name": "library", "values": ["openblas", "mkl"]}]}, {},
                  expect("null", numpy="x86_64_v3")),
    # The same CPU with MKL preferred: the BLAS preference picks between two v3 builds.
    "x86_64-v3-mkl": ({"x86_64": [{"multi_value": False, "name": "level", "values": ["v3", "v2", "v1"]}],
                       "blas": [{"multi_value": False, "name": "library", "values": ["mkl", "openblas"]}]}, {},
                      expect("null", numpy="v3mkl")),
    "cuda12.8-sm90": (cuda("12.8", 90), {}, expect("cu128")),
    "cuda13.0-sm100": (cuda("13.0", 100), {}, expect("cu130")),
    "cuda12.8-sm61": (cuda("12.8", 61), {}, expect("cu126")),
    "rocm7.2": ({"amd": [{"multi_value": True, "name": "gfx_arch", "values": ["gfx942"]},
                         {"multi_value": False, "name": "rocm_version", "values": ["7.2"]}]}, {}, expect("rocm72")),
    "xpu": ({"intel": [{"multi_value": True, "name": "device_ip", "values": ["12.60.7"]}]}, {}, expect("xpu")),
    "no-gpu-py311": ({}, {"python": "3.11"}, expect("null", extra=["oldpy"])),
    "win-py311": ({}, {"python": "3.11", "platform": "win32"}, expect("null", extra=["oldpy", "winonly"])),
}


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    return {name: profile(tmp_path_factory, name, props, **env) for name, (props, env, _) in CASES.items()}


@pytest.fixture(scope="module")
def lockfile(vwheel_bin, links, tmp_path_factory):
    d = tmp_path_factory.mktemp("lock")
    out = d / "pylock.toml"
    r = run(vwheel_bin, d, "lock", "torch", "torchvision", "--no-index", "--find-links", links, "-o", out,
            "--python", PY)
    assert r.returncode == 0, r.stderr
    return out


def run(vwheel_bin, home, *args):
    from test_lock_sync import run_vwheel
    return run_vwheel(vwheel_bin, home, *args)


def installed(vwheel, python):
    r = vwheel("list", "--json", "--python", python)
    assert r.rc == 0, r.err
    return {norm(d["name"]): (d["version"], d.get("variant") or "") for d in json.loads(r.out)}


def test_lock_holds_every_version_a_fork_needs(lockfile):
    doc = tomllib.loads(lockfile.read_text())
    versions = {}
    for p in doc["packages"]:
        versions.setdefault(norm(p["name"]), set()).add(p["version"])
    for lib in NV:
        assert versions[lib] == {"12.6.0", "12.8.0", "13.0.0"}, (lib, versions.get(lib))
    for p in ("winonly", "oldpy", "triton", "rocm-triton", "xpu-runtime"):
        assert p in versions, p
    # Every entry torch's forks needed is one of its `dependencies` edges (PEP 751).
    torch = next(p for p in doc["packages"] if p["name"] == "torch")
    edges = {(d["name"], d["version"]) for d in torch["dependencies"]}
    assert {(lib, v) for lib in NV for v in NV_VERSION.values()} <= edges
    assert ("winonly", "1.0") in edges and ("oldpy", "1.0") in edges


def test_an_unchanged_relock_is_byte_identical(vwheel_bin, links, lockfile, tmp_path):
    out = tmp_path / "again.toml"
    r = run(vwheel_bin, tmp_path, "lock", "torch", "torchvision", "--no-index", "--find-links", links, "-o", out,
            "--python", PY)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == lockfile.read_bytes()


@pytest.mark.parametrize("name", list(CASES))
def test_install_and_sync_agree(vwheel, links, lockfile, profiles, tmp_path, name):
    expected = CASES[name][2]
    target = profiles[name]
    a = make_venv(vwheel, tmp_path / "a")
    r = vwheel("install", "torch", "torchvision", "--no-index", "--find-links", links, "--python", a, "--target", target)
    assert r.rc == 0, r.err
    assert installed(vwheel, a) == expected
    b = make_venv(vwheel, tmp_path / "b")
    r = vwheel("sync", lockfile, "--python", b, "--target", target)
    assert r.rc == 0, r.err
    assert installed(vwheel, b) == expected
    before = tree(b)
    r = vwheel("sync", lockfile, "--python", b, "--target", target)
    assert r.rc == 0, r.err
    assert "installed " not in r.out and "removed " not in r.out, r.out
    assert tree(b) == before
    # export walks the same graph
    r = vwheel("export", lockfile, "--format", "requirements.txt", "--target", target, "--python", PY)
    assert r.rc == 0, r.err
    pins = {norm(line.split("==")[0]): line.split("==")[1].split()[0] for line in r.out.splitlines()
            if "==" in line and not line.startswith("#")}
    assert pins == {p: v for p, (v, _) in expected.items()}


def test_a_lock_missing_an_entry_is_refused_before_anything_changes(vwheel, lockfile, profiles, tmp_path):
    text = lockfile.read_text()
    doc = tomllib.loads(text)
    # Drop nv-libc 12.8.0: the cuda12.8 variant of torch needs it.
    blocks = text.split("\n[[packages]]\n")
    kept = [b for b in blocks if not (b.startswith('name = "nv-libc"\nversion = "12.8.0"'))]
    assert len(kept) == len(blocks) - 1
    broken = tmp_path / "pylock.toml"
    broken.write_text("\n[[packages]]\n".join(kept))
    assert len(tomllib.loads(broken.read_text())["packages"]) == len(doc["packages"]) - 1
    venv = make_venv(vwheel, tmp_path / "venv")
    assert vwheel("sync", lockfile, "--python", venv, "--target", profiles["no-gpu"]).rc == 0
    before = tree(venv)
    r = vwheel("sync", broken, "--python", venv, "--target", profiles["cuda12.8-sm90"])
    assert r.rc == 1, (r.out, r.err)
    assert r.err.strip().endswith(
        "torch 2.9.0 [cu128] requires nv-libc==12.8.0, which the lock does not contain: run vwheel lock again"), r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert tree(venv) == before


@pytest.fixture(scope="module")
def standard_lock(lockfile, tmp_path_factory):
    """The lock without any `tool` table (PEP 751: they must not affect installation)."""
    from test_lock_sync import dump_toml
    doc = tomllib.loads(lockfile.read_text())
    doc.pop("tool", None)
    for p in doc["packages"]:
        p.pop("tool", None)
    out = tmp_path_factory.mktemp("standard") / "pylock.toml"
    out.write_text(dump_toml(doc))
    assert "tool" not in out.read_text()
    return out


@pytest.mark.parametrize("name", ["no-gpu", "cuda12.8-sm90", "cuda13.0-sm100", "rocm7.2", "win-py311"])
def test_the_lock_without_tool_tables_syncs_the_same(vwheel, standard_lock, profiles, tmp_path, name):
    venv = make_venv(vwheel, tmp_path / "venv")
    r = vwheel("sync", standard_lock, "--python", venv, "--target", profiles[name])
    assert r.rc == 0, r.err
    assert installed(vwheel, venv) == CASES[name][2]


def test_a_lock_for_two_targets_holds_both_versions_and_its_environments(vwheel, links, profiles, tmp_path):
    out = tmp_path / "pylock.toml"
    r = vwheel("lock", "torch", "torchvision", "--no-index", "--find-links", links, "-o", out,
               "--target", profiles["cuda12.8-sm90"], "--target", profiles["cuda13.0-sm100"])
    assert r.rc == 0, r.err
    doc = tomllib.loads(out.read_text())
    assert {p["version"] for p in doc["packages"] if p["name"] == "nv-liba"} == {"12.8.0", "13.0.0"}
    assert doc["environments"] == ['sys_platform == "linux" and platform_machine == "x86_64" and python_version == "3.12"']
    for name in ("cuda12.8-sm90", "cuda13.0-sm100"):
        venv = make_venv(vwheel, tmp_path / name)
        r = vwheel("sync", out, "--python", venv, "--target", profiles[name])
        assert r.rc == 0, r.err
        assert installed(vwheel, venv) == CASES[name][2]
    # PEP 751: a target that no `environments` marker matches is refused
    r = vwheel("sync", out, "--python", venv, "--target", profiles["win-py311"], "--dry-run")
    assert r.rc == 1 and "none of the lock's `environments` matches" in r.err, r.err


def test_the_lock_states_requires_python_and_sync_refuses_a_python_outside_it(vwheel, lockfile, tmp_path_factory,
                                                                              tmp_path):
    # Every wheel of the index says Requires-Python >=3.9: so does the lock, at the top and per entry.
    doc = tomllib.loads(lockfile.read_text())
    assert doc["requires-python"] == example.REQUIRES_PYTHON
    assert {p.get("requires-python") for p in doc["packages"]} == {example.REQUIRES_PYTHON}
    old = profile(tmp_path_factory, "py38", {}, python="3.8")
    venv = make_venv(vwheel, tmp_path / "venv")
    before = tree(venv)
    r = vwheel("sync", lockfile, "--python", venv, "--target", old)
    assert r.rc == 1, (r.out, r.err)
    assert "Requires-Python `>=3.9` excludes Python 3.8" in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert tree(venv) == before


# --- The lock stays valid as the index grows (issue 15, item 6) ---------------------------------

def versions_of(path):
    out = {}
    for p in tomllib.loads(Path(path).read_text())["packages"]:
        out.setdefault(norm(p["name"]), set()).add(p["version"])
    return out


@pytest.fixture
def growing(vwheel_bin, links, tmp_path):
    """A copy of the index, a lock of `torch` made from it, and `publish()`: after it, the index
    has torch 2.10.0 (pinning nv-lib* 12.8.1 on CUDA 12.8), a new `cu129` variant of torch 2.9.0,
    and filelock 3.19.0."""
    grown = tmp_path / "links"
    shutil.copytree(links, grown)
    lock = tmp_path / "pylock.toml"
    r = run(vwheel_bin, tmp_path, "lock", "torch", "--no-index", "--find-links", grown, "-o", lock, "--python", PY)
    assert r.returncode == 0, r.stderr

    def publish():
        build = tmp_path / "build"
        build.mkdir()
        deps = TORCH_COMMON + [f'{lib}==12.8.1; variant_label == "cu128"' for lib in NV] + [
            f'{lib}==13.0.0; variant_label == "cu130"' for lib in NV] + ['triton==3.5.0; "nvidia" in variant_namespaces']
        for label, props in (("cu130", CU130), ("cu128", CU128), ("null", None)):
            make_variant(vwheel_bin, build, grown, "torch", "2.10.0", label, props, deps, NAMESPACES[:3])
        make_variant(vwheel_bin, build, grown, "torch", "2.9.0", "cu129",
                     ["nvidia :: cuda_version_lower_bound :: 12.9", "nvidia :: sm_arch :: 100_real"], TORCH_DEPS,
                     NAMESPACES[:3])
        for lib in NV:
            make_variant(vwheel_bin, build, grown, lib, "12.8.1", "cu12", ["nvidia :: cuda_version_lower_bound :: 12.0"],
                         [], ["nvidia"])
        example.plain_wheel(grown, "filelock", "3.19.0", [], "non-variant")
        r = subprocess.run([str(vwheel_bin), "generate-index-json", grown, "-o", grown], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    return grown, lock, publish


def test_a_lock_syncs_what_it_locked_after_the_index_grows(vwheel, growing, profiles, tmp_path):
    grown, lock, publish = growing
    publish()
    for name in ("cuda12.8-sm90", "cuda13.0-sm100", "no-gpu"):
        expected = {p: v for p, v in CASES[name][2].items() if p != "torchvision"}
        venv = make_venv(vwheel, tmp_path / name)
        r = vwheel("sync", lock, "--python", venv, "--target", profiles[name])
        assert r.rc == 0, r.err
        assert installed(vwheel, venv) == expected, name
    # The grown index itself gives the new torch: the lock is what kept the old one.
    r = vwheel("install", "torch", "--no-index", "--find-links", grown, "--target", profiles["cuda12.8-sm90"],
               "--python", make_venv(vwheel, tmp_path / "fresh"), "--dry-run")
    assert r.rc == 0, r.err
    assert [line.split(" (")[0] for line in r.out.splitlines() if line.startswith("torch ")] == [
        "torch 2.10.0: torch-2.10.0-py3-none-any-cu128.whl"], r.out


def test_relocking_keeps_locked_versions_unless_upgraded(vwheel_bin, growing, tmp_path):
    grown, lock, publish = growing
    first = versions_of(lock)
    publish()
    args = ["torch", "--no-index", "--find-links", grown, "-o", lock, "--python", PY]
    # Without --upgrade: the versions stay (a new label of a locked version joins its entry).
    r = run(vwheel_bin, tmp_path, "lock", *args)
    assert r.returncode == 0, r.stderr
    assert versions_of(lock) == first
    assert "torch-2.9.0-py3-none-any-cu129.whl" in lock.read_text()
    # --upgrade-package torch: torch and what its new version needs move, nothing else.
    r = run(vwheel_bin, tmp_path, "lock", *args, "--upgrade-package", "Torch")
    assert r.returncode == 0, r.stderr
    moved = versions_of(lock)
    assert moved["torch"] == {"2.10.0"}
    for lib in NV:
        assert moved[lib] == {"12.8.1", "13.0.0"}, (lib, moved[lib])
    assert moved["filelock"] == {"3.18.0"} and moved["typing-extensions"] == first["typing-extensions"]
    # --upgrade: everything may move.
    r = run(vwheel_bin, tmp_path, "lock", *args, "--upgrade")
    assert r.returncode == 0, r.stderr
    assert versions_of(lock)["filelock"] == {"3.19.0"}
    # An unchanged re-lock of an existing lock is byte-identical.
    before = lock.read_bytes()
    r = run(vwheel_bin, tmp_path, "lock", *args)
    assert r.returncode == 0, r.stderr
    assert lock.read_bytes() == before


def test_upgrade_package_of_an_unknown_name_is_one_line_error(vwheel_bin, growing, tmp_path):
    grown, lock, _ = growing
    before = lock.read_bytes()
    r = run(vwheel_bin, tmp_path, "lock", "torch", "--no-index", "--find-links", grown, "-o", lock, "--python", PY,
            "--upgrade-package", "nosuch")
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().endswith("--upgrade-package nosuch: no package nosuch in the lock or its resolution")
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert lock.read_bytes() == before


def test_relocking_for_a_target_keeps_locked_versions_too(vwheel, growing, profiles, tmp_path):
    grown, _, publish = growing
    lock = tmp_path / "target.toml"
    args = ["lock", "torch", "--no-index", "--find-links", grown, "-o", lock, "--target", profiles["cuda12.8-sm90"]]
    assert vwheel(*args).rc == 0
    first = versions_of(lock)
    assert first["torch"] == {"2.9.0"} and first["nv-liba"] == {"12.8.0"}
    publish()
    r = vwheel(*args)
    assert r.rc == 0, r.err
    assert versions_of(lock) == first
    r = vwheel(*args, "--upgrade-package", "torch")
    assert r.rc == 0, r.err
    moved = versions_of(lock)
    assert moved["torch"] == {"2.10.0"} and moved["nv-liba"] == {"12.8.1"} and moved["filelock"] == {"3.18.0"}
