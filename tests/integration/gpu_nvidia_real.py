"""NVIDIA detection against a real driver, checked against what `nvidia-smi` says about the same
machine. Not collected by the test suite (its name does not start with `test_`): CI has no GPU, and
there every test must run (scripts/count-skips); the fake NVML libraries of tests/unit/provider
cover each path of the detection there. scripts/gpu-check runs these on a GPU machine, where they
are the check that NVML, read through dlopen, gives the machine's true driver and architecture,
and that the choice made from them is the one made from the same values given by hand. Without
a GPU they skip, saying why.

Run them alone with:
  VWHEEL_BIN=build/vwheel python3 -m pytest -q tests/integration/gpu_nvidia_real.py
"""
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

TORCH = ROOT / "examples" / "torch-2.9.0-variants.json"


@pytest.fixture(scope="module")
def smi():
    """{"cuda": (major, minor), "driver": "580.x", "gpus": [(name, driver, (cc major, cc minor))]}"""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        pytest.skip("no NVIDIA GPU here (nvidia-smi not found): these tests need a machine with one")
    header = subprocess.run([exe], capture_output=True, text=True, timeout=120)
    if header.returncode != 0:
        pytest.skip(f"nvidia-smi failed (rc {header.returncode}): {(header.stderr or header.stdout).strip()}")
    m = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", header.stdout)
    assert m, f"no 'CUDA Version' in nvidia-smi's header:\n{header.stdout}"
    q = subprocess.run([exe, "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"],
                       capture_output=True, text=True, timeout=120)
    assert q.returncode == 0, q.stderr
    gpus = []
    for line in q.stdout.splitlines():
        if line.strip():
            name, driver, cc = (s.strip() for s in line.rsplit(",", 2))
            major, minor = cc.split(".")
            gpus.append((name, driver, (int(major), int(minor))))
    assert gpus, f"nvidia-smi lists no GPU:\n{q.stdout}"
    return {"cuda": (int(m.group(1)), int(m.group(2))), "driver": gpus[0][1], "gpus": gpus}


def driver_env(extra=None):
    """What the provider needs of the caller's environment to find the driver's libraries (a
    container can put them on LD_LIBRARY_PATH, not in ld.so.cache)."""
    env = {k: os.environ[k] for k in ("LD_LIBRARY_PATH",) if k in os.environ}
    env.update(extra or {})
    return env


def forced_env(smi):
    """The same machine described by hand, with the reference provider's override variables."""
    best = max(cc for _, _, cc in smi["gpus"])
    return driver_env({"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "{}.{}".format(*smi["cuda"]),
                       "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "{}.{}".format(*best)})


def nvidia_properties(vwheel, env):
    r = vwheel("analyze-platform", "--json", "--no-cache", "--namespace", "nvidia", env=env)
    assert r.rc == 0, r.err
    return {p["name"]: p["values"] for p in r.json()["properties"].get("nvidia", [])}


def test_nvml_reports_the_driver_and_gpus_nvidia_smi_shows(vwheel, smi):
    r = vwheel("providers", env=driver_env())
    assert r.rc == 0, r.err
    line = next(l for l in r.out.splitlines() if l.startswith("nvidia "))
    assert line.split()[3] == "yes", line
    assert f"NVML (driver {smi['driver']})" in line, line
    assert "CUDA {}.{}".format(*smi["cuda"]) in line, line
    count = len(smi["gpus"])
    capabilities = ", ".join(f"{major}.{minor}" for _, _, (major, minor) in smi["gpus"])
    assert f"{count} GPU{'s' if count > 1 else ''}: sm {capabilities}" in line, line


def test_detected_properties_follow_from_nvidia_smi(vwheel, smi):
    got = nvidia_properties(vwheel, driver_env())
    cuda = "{}.{}".format(*smi["cuda"])
    # The driver's CUDA version is the highest lower bound it meets; upper bounds are exclusive, so
    # the lowest it meets is the next minor version.
    major, minor = smi["cuda"]
    assert got["cuda_version_lower_bound"][0] == cuda, got["cuda_version_lower_bound"][:3]
    assert got["cuda_version_upper_bound"][-1] == f"{major}.{minor + 1}", got["cuda_version_upper_bound"][-3:]
    # The best GPU's architecture, then the lower minors of its major, then its PTX target.
    x, y = max(cc for _, _, cc in smi["gpus"])
    assert got["sm_arch"] == [f"{x}{m}_real" for m in range(y, -1, -1)] + [f"{x}0_virtual"], got["sm_arch"]


def test_the_real_driver_and_the_same_values_by_hand_agree(vwheel, smi):
    """NVML's answer and the override variables set from nvidia-smi give the same properties, and
    the same ranking of torch 2.9.0's real variants, whose best is a CUDA build, not null."""
    assert nvidia_properties(vwheel, driver_env()) == nvidia_properties(vwheel, forced_env(smi))
    real = vwheel("rank", "--no-cache", TORCH, env=driver_env())
    by_hand = vwheel("rank", "--no-cache", TORCH, env=forced_env(smi))
    assert real.rc == 0 and by_hand.rc == 0, real.err + by_hand.err
    assert real.out == by_hand.out
    assert real.out.split()[0].startswith("cuda"), real.out
