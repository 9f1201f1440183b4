#!/usr/bin/env python3
"""Generates the example package index: a torch-like project with CUDA/ROCm/CPU-level/null variant
wheels and variant-marker dependencies, modelled on PEP 825's "Installation example".

Usage: examples/make_example_index.py OUTDIR [--vwheel BIN]

Writes (replacing what an earlier run left there; nothing else in OUTDIR is touched):
  OUTDIR/wheels/    every wheel (variant and non-variant), the input of `vwheel index build`
  OUTDIR/variants/  one {name}-{version}-variants.json per version with variant wheels
                    (`vwheel generate-index-json`; the site's copies are checked to be identical)
  OUTDIR/site/      the static PEP 503/691/658/825 index (`vwheel index build`)

All wheels are pure Python (py3-none-any) so any CPython 3 can install them; the variant wheels
are made from plain wheels with `vwheel make-variant`, which validates every property against
vwheel's native providers. The output is byte-for-byte the same on every run (fixed timestamps,
fixed file order), and generating it takes well under a second.

EXPECTED (below) says what an installer should choose for each profile in examples/profiles;
examples/README.md explains it and the integration tests import it.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))
from wheelfactory import make_wheel, record_hash  # noqa: E402

SCHEMA_FORMAT = "v0.1.1"  # PEP 825's variant.json format
MTIME = 1767225600  # 2026-01-01T00:00:00Z: every wheel's mtime, hence the site's upload-time
REQUIRES_PYTHON = ">=3.9"

# Variant properties of each label, in the order `make-variant -p` gets them.
CU130 = ["nvidia :: cuda_version_lower_bound :: 13.0", "nvidia :: sm_arch :: 90_real",
         "nvidia :: sm_arch :: 100_real", "nvidia :: sm_arch :: 120_real"]
CU128 = ["nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 80_real",
         "nvidia :: sm_arch :: 90_real", "nvidia :: sm_arch :: 100_real", "nvidia :: sm_arch :: 120_real"]
CU126 = ["nvidia :: cuda_version_lower_bound :: 12.6", "nvidia :: sm_arch :: 80_real",
         "nvidia :: sm_arch :: 90_real"]
ROCM72 = ["amd :: rocm_version :: 7.2", "amd :: gfx_arch :: gfx90a", "amd :: gfx_arch :: gfx942"]


def level(v):
    return [f"x86_64 :: level :: {v}"]


# The dependencies common to every torch build.
TORCH_COMMON = ["filelock", "typing-extensions>=4.8", "numpy>=2", "sympy>=1.13", 'colorama; sys_platform == "win32"']

# What the variant wheels of torch 2.13.0 depend on (PEP 825 "Environment markers"): evaluated with the
# selected wheel's properties narrowed to those the target supports (so fast-gemm, for sm 12.0 only,
# is not selected on an sm 9.0 machine even though the cu128 wheel lists 120_real).
TORCH_VARIANT_DEPS = TORCH_COMMON + [
    'nvidia-cudnn-cu12; "nvidia :: cuda_version_lower_bound :: 12.8" in variant_properties'
    ' or "nvidia :: cuda_version_lower_bound :: 12.6" in variant_properties',
    'nvidia-cudnn-cu13; "nvidia :: cuda_version_lower_bound :: 13.0" in variant_properties',
    'rocm-runtime>=7.2; "amd" in variant_namespaces',
    'fast-gemm; "nvidia :: sm_arch :: 120_real" in variant_properties',
    'onednn; "x86_64 :: level" in variant_features',
]
# The non-variant torch wheel is what installers that know no variants get: the default CUDA 12.8
# build, with its CUDA dependency unconditional and no variant markers (older pips reject them;
# PEP 825 "Backwards Compatibility").
TORCH_PLAIN_DEPS = TORCH_COMMON + ["nvidia-cudnn-cu12"]

# (version, [(label, properties or None for null)], requires of the variant wheels, requires of the plain wheel)
TORCH = [
    ("2.12.0", [("cu126", CU126), ("null", None)],
     TORCH_COMMON + ['nvidia-cudnn-cu12; "nvidia :: cuda_version_lower_bound :: 12.6" in variant_properties'],
     TORCH_PLAIN_DEPS),
    ("2.13.0", [("cu130", CU130), ("cu128", CU128), ("cu126", CU126), ("rocm72", ROCM72),
                ("x86_64_v3", level("v3")), ("null", None)],
     TORCH_VARIANT_DEPS, TORCH_PLAIN_DEPS),
]
NUMPY = [("1.26.4", []),
         ("2.3.2", [("x86_64_v2", level("v2")), ("x86_64_v3", level("v3")), ("x86_64_v4", level("v4")),
                    ("null", None)])]

# Plain (non-variant) projects: name -> [(version, requires)].
PLAIN = {
    "filelock": [("3.12.0", []), ("3.18.0", [])],
    "typing-extensions": [("4.7.1", []), ("4.14.0", [])],
    "sympy": [("1.14.0", ["mpmath<1.4,>=1.1.0"])],
    "mpmath": [("1.3.0", []), ("1.4.0", [])],
    "nvidia-cudnn-cu12": [("9.10.2", ["nvidia-cublas-cu12"])],
    "nvidia-cublas-cu12": [("12.8.4", [])],
    "nvidia-cudnn-cu13": [("9.13.0", [])],
    "rocm-runtime": [("7.2.0", [])],
    "fast-gemm": [("1.0.0", [])],
    "onednn": [("3.9.0", [])],
    "colorama": [("0.4.6", [])],
}

# [variant] tables for make-variant --pyproject: the namespace order of PEP 825's example, and the
# reference providers vwheel's native ones stand in for (not written to v0.1.1 variant.json).
PROVIDERS = {
    "nvidia": ("nvidia-variant-provider>=0.0.2", "nvidia_variant_provider.plugin:NvidiaVariantPlugin"),
    "amd": ("amd-variant-provider>=0.0.2", "amd_variant_provider.plugin:AMDVariantPlugin"),
    "x86_64": ("provider-variant-x86-64>=0.0.3", "provider_variant_x86_64.plugin:X8664Plugin"),
}
PRIORITIES = {"torch": ["nvidia", "amd", "x86_64"], "numpy": ["x86_64"]}

# What an installer chooses for each profile in examples/profiles (torch 2.13.0, numpy 2.3.2):
# "variants" maps project -> label ("" = the non-variant wheel); "with"/"without" list projects that
# must / must not be installed with `torch`. "no-variants" is `--no-variants` (and pip) on any profile.
ALWAYS = ["torch", "filelock", "typing-extensions", "numpy", "sympy", "mpmath"]
VARIANT_ONLY_DEPS = ["nvidia-cudnn-cu12", "nvidia-cublas-cu12", "nvidia-cudnn-cu13", "rocm-runtime", "fast-gemm",
                     "onednn"]
EXPECTED = {
    "no-gpu": {"variants": {"torch": "null", "numpy": "null"}, "with": []},
    "cuda12.8-sm90": {"variants": {"torch": "cu128", "numpy": "null"},
                      "with": ["nvidia-cudnn-cu12", "nvidia-cublas-cu12"]},
    "x86_64-v3": {"variants": {"torch": "x86_64_v3", "numpy": "x86_64_v3"}, "with": ["onednn"]},
    "rocm7.2-gfx942": {"variants": {"torch": "rocm72", "numpy": "null"}, "with": ["rocm-runtime"]},
    "no-variants": {"variants": {"torch": "", "numpy": ""}, "with": ["nvidia-cudnn-cu12", "nvidia-cublas-cu12"]},
}
for _e in EXPECTED.values():
    _e["installed"] = sorted(ALWAYS + _e["with"])
    _e["without"] = sorted(set(VARIANT_ONLY_DEPS + ["colorama"]) - set(_e["with"]))
VERSIONS = {"torch": "2.13.0", "numpy": "2.3.2", "filelock": "3.18.0", "typing-extensions": "4.14.0",
            "sympy": "1.14.0", "mpmath": "1.3.0", "nvidia-cudnn-cu12": "9.10.2", "nvidia-cublas-cu12": "12.8.4",
            "nvidia-cudnn-cu13": "9.13.0", "rocm-runtime": "7.2.0", "fast-gemm": "1.0.0", "onednn": "3.9.0"}


def dist_name(project):
    return project.replace("-", "_")


def wheel_name(project, version, label=None):
    return f"{dist_name(project)}-{version}-py3-none-any{'-' + label if label else ''}.whl"


def set_metadata(path, project, version, requires):
    """Rewrites the wheel's METADATA (make_wheel writes only Name and Version) and its RECORD line."""
    with zipfile.ZipFile(path) as zf:
        members = [(info, zf.read(info)) for info in zf.infolist()]
    lines = ["Metadata-Version: 2.1", f"Name: {project}", f"Version: {version}",
             f"Summary: {project}, an example package of vwheel's example index",
             f"Requires-Python: {REQUIRES_PYTHON}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    metadata = ("\n".join(lines) + "\n").encode()
    record = []
    out = []
    for info, data in members:
        if info.filename.endswith(".dist-info/METADATA"):
            data = metadata
        if info.filename.endswith(".dist-info/RECORD"):
            record.append(f"{info.filename},,\n")
            data = "".join(record).encode()
        else:
            record.append(f"{info.filename},{record_hash(data)},{len(data)}\n")
        out.append((info, data))
    with zipfile.ZipFile(path, "w") as zf:
        for info, data in out:
            new = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            new.external_attr = info.external_attr
            new.compress_type = info.compress_type
            zf.writestr(new, data)


def plain_wheel(directory, project, version, requires, build):
    module = dist_name(project)
    path = make_wheel(directory, wheel_name(project, version),
                      {f"{module}/__init__.py": f"__version__ = {version!r}\nBUILD = {build!r}\n".encode()})
    set_metadata(path, project, version, requires)
    return path


def write_pyproject(path, project, version):
    namespaces = PRIORITIES[project]
    text = f'[project]\nname = "{project}"\nversion = "{version}"\n\n[variant.default-priorities]\n'
    text += "namespace = [" + ", ".join(f'"{n}"' for n in namespaces) + "]\n"
    for ns in namespaces:
        requires, api = PROVIDERS[ns]
        text += f'\n[variant.providers.{ns}]\nrequires = ["{requires}"]\nplugin-api = "{api}"\n'
    path.write_text(text)


def run(cmd):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if p.returncode != 0 or "warning" in p.stderr:
        sys.exit(f"make_example_index: `{' '.join(map(str, cmd))}` failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def variant_project(vwheel, build, wheels, project, version, labels, variant_requires, plain_requires):
    """The non-variant wheel, and one variant wheel per label made from a plain wheel of its own
    (so that `import torch; torch.BUILD` says which build was installed)."""
    if plain_requires is not None:
        plain_wheel(wheels, project, version, plain_requires, "non-variant")
    if not labels:
        return
    pyproject = build / f"{project}-{version}-pyproject.toml"
    write_pyproject(pyproject, project, version)
    for label, props in labels:
        d = build / f"{project}-{version}-{label}"
        d.mkdir()
        base = plain_wheel(d, project, version, variant_requires, label)
        cmd = [vwheel, "make-variant", base, "-o", wheels, "--pyproject", pyproject, "--format", SCHEMA_FORMAT,
               "-j", "1"]
        if props is None:
            cmd.append("--null")
        else:
            for p in props:
                cmd += ["-p", p]
            cmd += ["--label", label]
        run(cmd)


def generate(out, vwheel):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    wheels, variants, site, build = out / "wheels", out / "variants", out / "site", out / ".build"
    for d in (wheels, variants, site, build):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir()
    for version, labels, vreq, preq in TORCH:
        variant_project(vwheel, build, wheels, "torch", version, labels, vreq, preq)
    for version, labels in NUMPY:
        variant_project(vwheel, build, wheels, "numpy", version, labels, [], [])
    for project, versions in PLAIN.items():
        for version, requires in versions:
            plain_wheel(wheels, project, version, requires, "non-variant")
    shutil.rmtree(build)
    for w in wheels.iterdir():
        os.utime(w, (MTIME, MTIME))
    run([vwheel, "generate-index-json", wheels, "-o", variants])
    run([vwheel, "index", "build", wheels, "-o", site, "--quiet", "-j", "1"])
    # The index computes the same variants files (PEP 825: the merge does not depend on the order).
    for f in sorted(variants.iterdir()):
        project = f.name.split("-")[0].replace("_", "-")
        served = site / "files" / project / f.name
        if not served.is_file() or served.read_bytes() != f.read_bytes():
            sys.exit(f"make_example_index: {served} differs from `vwheel generate-index-json`'s {f}")
    return wheels, variants, site


def default_vwheel():
    env = os.environ.get("VWHEEL_BIN")
    if env:
        return env
    for b in (ROOT / "build" / "vwheel",):
        if b.exists():
            return str(b)
    return shutil.which("vwheel") or "vwheel"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--vwheel", default=default_vwheel(), help="the vwheel binary (default: $VWHEEL_BIN, build/vwheel)")
    args = ap.parse_args()
    wheels, variants, site = generate(args.outdir, args.vwheel)
    n = len(list(wheels.glob("*.whl")))
    digest = hashlib.sha256()
    for f in sorted(wheels.glob("*.whl")):
        digest.update(f.name.encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
    print(f"{n} wheels in {wheels}, {len(list(variants.iterdir()))} variants files in {variants}, "
          f"index in {site} (wheels digest {digest.hexdigest()[:16]})")


if __name__ == "__main__":
    main()
