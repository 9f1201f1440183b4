"""`vwheel install` from package indexes, end to end: the example index of examples/make_example_index.py
(a torch-like project with CUDA/ROCm/CPU-level/null variants and variant-marker dependencies, PEP 825's
"Installation example") served by `vwheel index serve`, installed into fresh venvs for each target
profile in examples/profiles, and pip against the same index; every choosing command's selection
options. Faults, caching and interruptions: test_index_faults.py."""
import json
import os
import re
import subprocess
import zipfile

import pytest

from example_site import (CUDA, PROFILE_NAMES, PROFILES, PY, TORCH_LABELS, assert_installed, choice_lines, example,
                          install, listed, make_venv, norm, tree, wheel_file)
from example_site import venv  # noqa: F401 (a fixture)
from served import start_serve
from wheelfactory import verify_record


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
