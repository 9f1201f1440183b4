"""Native detection through the real binary: `analyze-platform`, `providers`, the detection
cache, and `rank` without --target."""
import json
import os

import pytest


def profile(vwheel, *args, env=None):
    r = vwheel("analyze-platform", "--json", "--no-cache", *args, env=env)
    assert r.rc == 0, r.err
    return r.json()


def no_gpus(tmp_path):
    """The environment that hides this machine's GPUs from the providers, whatever it has: NVML and
    Level Zero libraries that do not exist and an empty /sys (the fake-library variables)."""
    sysfs = tmp_path / "empty-sysfs"
    sysfs.mkdir(exist_ok=True)
    return {"VWHEEL_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1",
            "VWHEEL_ZE_LOADER_LIBRARY": "/nonexistent/libze_loader.so.1",
            "VWHEEL_SYSFS_ROOT": str(sysfs)}


def expected_cpu(shared, arch):
    data = json.loads((shared / f"data/cpu/expected-{arch}.json").read_text())
    data.pop("meta")
    return data


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_cpuinfo_samples_match_the_reference(vwheel, shared, arch):
    expected = expected_cpu(shared, arch)
    assert len(expected) >= 16
    for name, configs in expected.items():
        sample = shared / "data/cpu/cpuinfo" / name
        env = {"VWHEEL_PROC_CPUINFO": str(sample)}
        got = profile(vwheel, "--namespace", arch, env=env)["properties"]
        want = {arch: configs} if configs else {}
        assert got == want, name


def test_x86_64_sample_gives_exactly_its_properties(vwheel, shared, tmp_path):
    # Without --namespace: the x86_64 answer and nothing else, the GPUs of this machine hidden.
    expected = expected_cpu(shared, "x86_64")
    sample = "linux-rocky9-zen5"
    got = profile(vwheel, env={"VWHEEL_PROC_CPUINFO": str(shared / "data/cpu/cpuinfo" / sample), **no_gpus(tmp_path)})
    # The aarch64 provider also reads a $VWHEEL_PROC_CPUINFO file: an x86_64 one is no aarch64 CPU,
    # so no aarch64 namespace (it used to fall back to the generic `version 8a`).
    assert got["properties"] == {"x86_64": expected[sample]}


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="needs an x86_64 host")
def test_this_machine_without_gpu(vwheel, tmp_path):
    got = profile(vwheel, env=no_gpus(tmp_path))
    assert "x86_64" in got["properties"]
    level = got["properties"]["x86_64"][0]
    assert level["name"] == "level" and level["values"][-1] == "v1"
    assert set(got["properties"]) == {"x86_64"}, got["properties"]
    assert got["environment"]["sys_platform"] == "linux"
    assert "py3-none-any" in got["tags"]
    # The profile is accepted by --target.
    r = vwheel("analyze-platform", "--json")
    assert r.rc == 0


def test_profile_round_trips_through_rank(vwheel, tmp_path, examples):
    p = tmp_path / "me.json"
    p.write_text(vwheel("analyze-platform", "--json").out)
    r = vwheel("rank", examples / "torch-2.9.0-variants.json", "--target", p)
    assert r.rc == 0, r.err
    assert r.out.splitlines()[-1] == "null"


def test_nvidia_force_variables(vwheel, shared):
    cases = json.loads((shared / "data/nvidia/cases.json").read_text())["cases"]
    forced = [c for c in cases if not c["nvml"].get("library_present", True) and len(c.get("env", {})) == 2
              and isinstance(c["expected"], list)]
    assert forced, "no forced cases in cases.json"
    for c in forced:
        env = dict(c["env"])
        env["VWHEEL_NVML_LIBRARY"] = "/nonexistent/libnvidia-ml.so.1"
        got = profile(vwheel, "--namespace", "nvidia", env=env)["properties"]
        want = {"nvidia": c["expected"]} if c["expected"] else {}
        assert got == want, c["id"]


def test_analyze_platform_human_view_and_unknown_namespace(vwheel):
    r = vwheel("analyze-platform")
    assert r.rc == 0
    assert "nvidia (provider 0.0.2)" in r.out
    r = vwheel("analyze-platform", "--namespace", "quantum")
    assert r.rc == 1 and "quantum" in r.err and len(r.err.strip().splitlines()) == 1


def test_detection_cache_is_used_and_invalidated(vwheel, shared, tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text((shared / "data/cpu/cpuinfo/linux-rocky9-zen5").read_text())
    env = {"VWHEEL_PROC_CPUINFO": str(cpuinfo)}
    first = vwheel("analyze-platform", env=env)
    assert first.rc == 0 and "from cache" not in first.out
    second = vwheel("analyze-platform", env=env)
    assert "from cache" in second.out and "zen5" in second.out
    # The hardware changes: the cache misses.
    cpuinfo.write_text((shared / "data/cpu/cpuinfo/linux-rhel7-haswell").read_text())
    third = vwheel("analyze-platform", env=env)
    assert "from cache" not in third.out and "haswell" in third.out
    assert "from cache" not in vwheel("analyze-platform", "--no-cache", env=env).out


def test_providers_list(vwheel):
    r = vwheel("providers")
    assert r.rc == 0
    for ns in ("x86_64", "aarch64", "nvidia", "amd", "intel"):
        assert ns in r.out
    j = vwheel("providers", "--json").json()
    assert {p["namespace"] for p in j} >= {"x86_64", "aarch64", "nvidia", "amd", "intel"}
    assert all("why" in p and "enabled" in p for p in j)


def test_rank_without_target_uses_detection(vwheel, shared, tmp_path):
    f = tmp_path / "pkg-1.0-variants.json"
    f.write_text(json.dumps({
        "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
        "default-priorities": {"namespace": ["x86_64"]},
        "variants": {"v4": {"x86_64": {"level": ["v4"]}}, "v3": {"x86_64": {"level": ["v3"]}},
                     "v2": {"x86_64": {"level": ["v2"]}}, "null": {}},
    }))
    env = {"VWHEEL_PROC_CPUINFO": str(shared / "data/cpu/cpuinfo/linux-rhel7-haswell")}
    r = vwheel("rank", f, env=env)
    assert r.rc == 0, r.err
    assert r.out.splitlines() == ["v3", "v2", "null"]
    e = vwheel("rank", f, "--explain", env=env)
    assert "this machine" in e.out and "v4: incompatible" in e.out


def test_enable_if_on_interpreter_variables_without_target(vwheel, shared, tmp_path):
    # A detected machine has no python_version of its own: the default interpreter supplies it.
    f = tmp_path / "pkg-1.0-variants.json"
    f.write_text(json.dumps({
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": {"namespace": ["x86_64"]},
        "providers": {"x86_64": {"requires": ["provider-variant-x86-64"], "enable-if": "python_version >= '3'"}},
        "variants": {"v2": {"x86_64": {"level": ["v2"]}}, "null": {}},
    }))
    env = {"VWHEEL_PROC_CPUINFO": str(shared / "data/cpu/cpuinfo/linux-rhel7-haswell")}
    r = vwheel("rank", f, env=env)
    assert r.rc == 0, r.err
    assert r.out.splitlines() == ["v2", "null"]
