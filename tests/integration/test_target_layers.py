"""Partial target profiles (`"detect": true`), `--target` given several times, and
`analyze-platform --json --namespace NS` (issue 18, item 4): "detect the CPU, but assume CUDA 12.8
and sm 9.0". The GPUs of the machine running the tests are hidden and its CPU is read from a fixed
cpuinfo file, so detection gives the same answer everywhere."""
import json
from pathlib import Path

from wheelfactory import make_wheel

PY = "/usr/bin/python3"
SCHEMA = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"

# A Haswell's flags: x86-64-v3, not v4.
HASWELL_FLAGS = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht "
    "syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology pni pclmulqdq ssse3 fma cx16 pcid "
    "sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand lahf_lm abm fsgsbase bmi1 avx2 smep bmi2 "
    "erms invpcid xsaveopt")

VARIANTS = {
    "$schema": SCHEMA,
    "default-priorities": {"namespace": ["nvidia", "x86_64"]},
    "variants": {
        "cu130": {"nvidia": {"cuda_version_lower_bound": ["13.0"]}},
        "cu128_v3": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}, "x86_64": {"level": ["v3"]}},
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
        "v4": {"x86_64": {"level": ["v4"]}},
        "v3": {"x86_64": {"level": ["v3"]}},
        "null": {},
    },
}


def cuda(*versions):
    return {"nvidia": [{"name": "cuda_version_lower_bound", "values": list(versions), "multi_value": False},
                       {"name": "sm_arch", "values": ["90_real", "90_virtual"], "multi_value": True}]}


def write(path, data):
    path.write_text(json.dumps(data))
    return path


def machine(tmp_path):
    """This machine as the tests see it: no GPU of any vendor, a Haswell CPU."""
    sysfs = tmp_path / "empty-sysfs"
    sysfs.mkdir(exist_ok=True)
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 63\n"
                       f"flags\t\t: {HASWELL_FLAGS}\n\n")
    return {"VWHEEL_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1",
            "VWHEEL_ZE_LOADER_LIBRARY": "/nonexistent/libze_loader.so.1",
            "VWHEEL_SYSFS_ROOT": str(sysfs), "VWHEEL_PROC_CPUINFO": str(cpuinfo)}


def rank(vwheel, tmp_path, *targets, explain=False):
    f = write(tmp_path / "pkg-1.0-variants.json", VARIANTS)
    args = ["rank", f, "--no-cache", *[a for t in targets for a in ("--target", t)]]
    if explain:
        args.append("--explain")
    r = vwheel(*args, env=machine(tmp_path))
    assert r.rc == 0, r.err
    return r.out if explain else r.out.split()


def test_detect_true_pins_the_listed_namespace_and_detects_the_rest(vwheel, tmp_path):
    partial = write(tmp_path / "cuda.json", {"detect": True, "properties": cuda("12.8", "12.7", "12.6", "12")})
    # CUDA 12.8 from the profile (no NVIDIA library here), x86-64-v3 detected from cpuinfo.
    assert rank(vwheel, tmp_path, partial) == ["cu128_v3", "cu126", "v3", "null"]
    out = rank(vwheel, tmp_path, partial, explain=True)
    assert f"nvidia (from target profile {partial}):" in out, out
    assert "x86_64 (from detected: " in out, out
    assert f"Target: target profile {partial} (namespaces not listed: this machine, detected)" in out
    # The missing NVIDIA library is not reported: the profile answers that namespace.
    assert "libnvidia-ml" not in out
    f = tmp_path / "pkg-1.0-variants.json"
    j = vwheel("rank", f, "--json", "--target", partial, env=machine(tmp_path)).json()
    origins = {n["namespace"]: n.get("origin") for n in j["namespaces"]}
    assert origins["nvidia"] == f"target profile {partial}"
    assert origins["x86_64"].startswith("detected: ")

    # Without `detect`, a namespace the profile does not list is unsupported.
    whole = write(tmp_path / "whole.json", {"properties": cuda("12.8", "12.7", "12.6", "12")})
    assert rank(vwheel, tmp_path, whole) == ["cu126", "null"]
    assert "x86_64: unsupported (the target profile lists no properties" in rank(vwheel, tmp_path, whole, explain=True)


def test_later_targets_replace_earlier_ones_per_namespace(vwheel, tmp_path):
    cpu = write(tmp_path / "cpu.json", {"properties": {"x86_64": [{"name": "level", "values": ["v4", "v3"]}]}})
    old = write(tmp_path / "cuda126.json", {"properties": cuda("12.6", "12")})
    new = write(tmp_path / "cuda128.json", {"properties": cuda("12.8", "12.7", "12.6", "12")})
    # x86_64 from the first file, nvidia from the last one that lists it.
    assert rank(vwheel, tmp_path, cpu, old, new) == ["cu128_v3", "cu126", "v4", "v3", "null"]
    assert rank(vwheel, tmp_path, cpu, new, old) == ["cu126", "v4", "v3", "null"]
    out = rank(vwheel, tmp_path, cpu, new, old, explain=True)
    assert f"nvidia (from target profile {old}):" in out and f"x86_64 (from target profile {cpu}):" in out
    assert f"Target: target profiles {cpu}, {new}, {old}" in out
    # A later `"detect": true` file turns detection on for the namespaces no file lists.
    on = write(tmp_path / "on.json", {"detect": True, "properties": {}})
    assert rank(vwheel, tmp_path, old, on) == ["cu126", "v3", "null"]


def test_detect_must_be_a_boolean(vwheel, tmp_path):
    bad = write(tmp_path / "bad.json", {"detect": "yes", "properties": {}})
    good = write(tmp_path / "good.json", {"properties": {}})
    f = write(tmp_path / "pkg-1.0-variants.json", VARIANTS)
    r = vwheel("rank", f, "--target", good, "--target", bad, env=machine(tmp_path))
    assert r.rc == 1 and r.out == ""
    assert r.err.strip().splitlines() == [f'vwheel: error: {bad}: detect: expected true or false, got "yes"'], r.err


def test_analyze_platform_namespace_prints_a_partial_profile(vwheel, tmp_path):
    env = {**machine(tmp_path), "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8",
           "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"}
    r = vwheel("analyze-platform", "--json", "--namespace", "nvidia", "--no-cache", env=env)
    assert r.rc == 0, r.err
    got = r.json()
    # Just that part: no other namespace, no environment, no tags; the rest is left to detection.
    assert set(got) == {"detect", "properties"} and got["detect"] is True
    assert set(got["properties"]) == {"nvidia"}
    features = {f["name"]: f["values"] for f in got["properties"]["nvidia"]}
    assert features["cuda_version_lower_bound"][0] == "12.8"
    assert features["sm_arch"][0] == "90_real"
    # Written on a build machine, used elsewhere: CUDA from the file, the CPU detected there.
    part = tmp_path / "nvidia.json"
    part.write_text(r.out)
    assert rank(vwheel, tmp_path, part) == ["cu128_v3", "cu126", "v3", "null"]
    # Without --namespace the profile is a whole one, as before.
    whole = vwheel("analyze-platform", "--json", "--no-cache", env=env).json()
    assert "detect" not in whole and {"nvidia", "x86_64"} <= set(whole["properties"]) and "environment" in whole


def test_analyze_platform_unknown_namespace_is_named(vwheel, tmp_path):
    r = vwheel("analyze-platform", "--json", "--namespace", "nvidia", "--namespace", "quantum", env=machine(tmp_path))
    assert r.rc == 1 and r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "--namespace quantum" in lines[0] and "nvidia" in lines[0], r.err


def variant_wheel(directory, label, props):
    vj = {"$schema": SCHEMA, "default-priorities": {"namespace": ["nvidia", "x86_64"]},
          "variants": {label: props}}
    return make_wheel(directory, f"gpkg-1.0-py3-none-any-{label}.whl",
                      {"gpkg/__init__.py": f"L = '{label}'\n".encode()}, variant_json=vj)


def test_install_explains_where_each_namespace_came_from(vwheel, tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    for label, props in VARIANTS["variants"].items():
        variant_wheel(links, label, props)
    venv = tmp_path / "venv"
    assert vwheel("venv", venv, "--python", PY).rc == 0
    partial = write(tmp_path / "cuda.json", {"detect": True, "properties": cuda("12.8", "12.7", "12.6", "12")})
    r = vwheel("install", "gpkg", "--find-links", links, "--python", venv / "bin" / "python", "--target", partial,
               "--explain", "--no-cache", env=machine(tmp_path))
    assert r.rc == 0, r.err
    assert "gpkg 1.0: gpkg-1.0-py3-none-any-cu128_v3.whl (variant cu128_v3:" in r.out, r.out
    assert f"  namespace nvidia: from target profile {partial}" in r.out, r.out
    assert "  namespace x86_64: from detected: " in r.out, r.out
    assert "  cu130: incompatible" in r.out
