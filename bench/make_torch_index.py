"""A torch-shaped --find-links index for bench/lock_index.sh (the shape of
tests/integration/test_lock_forks.py, made larger): torch 2.8.0 and 2.9.0 with seven variants
(null, three CUDA, ROCm, XPU) whose CUDA variants pin different versions of fifteen runtime
libraries that are themselves variant projects (cu12/cu13 labels), a torchvision with the same
labels, a numpy-like project with CPU-level variants, plain transitive dependencies; and target
profiles. Usage: make_torch_index.py VWHEEL OUT_DIR PROFILES_DIR"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "tests" / "integration"))
import make_example_index as example  # noqa: E402

NV = [f"nv-lib{c}" for c in "abcdefghijklmno"]
NV_VERSION = {"2.9.0": {"cu126": "12.6.0", "cu128": "12.8.0", "cu130": "13.0.0"},
              "2.8.0": {"cu126": "12.5.0", "cu128": "12.8.0", "cu130": "13.0.0"}}
NV_LABELS = {"12.4.0": ["cu12"], "12.5.0": ["cu12"], "12.6.0": ["cu12"], "12.8.0": ["cu12"], "13.0.0": ["cu12", "cu13"]}
CU130 = ["nvidia :: cuda_version_lower_bound :: 13.0", "nvidia :: sm_arch :: 90_real", "nvidia :: sm_arch :: 100_real"]
CU128 = ["nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 80_real", "nvidia :: sm_arch :: 90_real",
         "nvidia :: sm_arch :: 100_real"]
CU126 = ["nvidia :: cuda_version_lower_bound :: 12.6", "nvidia :: sm_arch :: 61_real", "nvidia :: sm_arch :: 80_real",
         "nvidia :: sm_arch :: 90_real"]
GPU_LABELS = [("cu130", CU130), ("cu128", CU128), ("cu126", CU126),
              ("rocm72", ["amd :: rocm_version :: 7.2", "amd :: gfx_arch :: gfx942"]),
              ("xpu", ["intel :: device_ip :: 12.60.7"]), ("null", None)]
NAMESPACES = ["nvidia", "amd", "intel"]
PROVIDERS = dict(example.PROVIDERS, intel=("intel-variant-provider>=0.0.2",
                                            "intel_variant_provider.plugin:IntelVariantPlugin"))
COMMON = ["filelock", "typing-extensions>=4.8", "numpyish>=2", 'winonly; sys_platform == "win32"',
          'oldpy; python_version < "3.12"', 'triton==3.5.0; "nvidia" in variant_namespaces',
          'rocm-triton==3.5.0; variant_label == "rocm72"', 'xpu-runtime==2025.2; variant_label == "xpu"']
PLAIN = {"filelock": ["3.17.0", "3.18.0"], "typing-extensions": ["4.7.1", "4.14.0"], "triton": ["3.5.0"],
         "rocm-triton": ["3.5.0"], "xpu-runtime": ["2025.2"], "winonly": ["1.0"], "oldpy": ["1.0"],
         "numpyish": ["1.26.4"]}


def make_variant(vwheel, build, out, project, version, label, props, requires, namespaces):
    d = build / f"{project}-{version}-{label}"
    d.mkdir()
    base = example.plain_wheel(d, project, version, requires, label)
    pyproject = build / f"{project}-{version}-{label}.toml"
    text = f'[project]\nname = "{project}"\nversion = "{version}"\n\n[variant.default-priorities]\n'
    text += "namespace = [" + ", ".join(f'"{n}"' for n in namespaces) + "]\n"
    for ns in namespaces:
        req, api = PROVIDERS[ns]
        text += f'\n[variant.providers.{ns}]\nrequires = ["{req}"]\nplugin-api = "{api}"\n'
    pyproject.write_text(text)
    cmd = [vwheel, "make-variant", base, "-o", out, "--pyproject", pyproject, "--format", example.SCHEMA_FORMAT, "-j", "1"]
    cmd += ["--null"] if props is None else [x for p in props for x in ("-p", p)] + ["--label", label]
    example.run(cmd)


def cuda(lower, sm):
    majors = {"12.8": [f"12.{m}" for m in range(8, -1, -1)] + ["12"],
              "13.0": ["13.0", "13"] + [f"12.{m}" for m in range(9, -1, -1)] + ["12"]}[lower]
    return {"nvidia": [{"multi_value": False, "name": "cuda_version_lower_bound", "values": majors},
                       {"multi_value": True, "name": "sm_arch", "values": [f"{sm}_real"]}]}


PROFILES = {
    "no-gpu": {},
    "x86_64-v3": {"x86_64": [{"multi_value": False, "name": "level", "values": ["v3", "v2", "v1"]}]},
    "cuda12.8-sm90": cuda("12.8", 90),
    "cuda13.0-sm100": cuda("13.0", 100),
    "cuda12.8-sm61": cuda("12.8", 61),
    "rocm7.2": {"amd": [{"multi_value": True, "name": "gfx_arch", "values": ["gfx942"]},
                        {"multi_value": False, "name": "rocm_version", "values": ["7.2"]}]},
    "xpu": {"intel": [{"multi_value": True, "name": "device_ip", "values": ["12.60.7"]}]},
}


def main(vwheel, out, profiles):
    out, profiles = Path(out), Path(profiles)
    build = out.parent / "build"
    for d in (out, build, profiles):
        d.mkdir(parents=True, exist_ok=True)
    for torch, vision in (("2.8.0", "0.23.0"), ("2.9.0", "0.24.0")):
        pins = [f'{lib}=={v}; variant_label == "{label}"' for label, v in NV_VERSION[torch].items() for lib in NV]
        for label, props in GPU_LABELS:
            make_variant(vwheel, build, out, "torch", torch, label, props, COMMON + pins, NAMESPACES)
            make_variant(vwheel, build, out, "torchvision", vision, label, props, [f"torch=={torch}"], NAMESPACES)
    for lib in NV:
        for version, labels in NV_LABELS.items():
            for label in labels:
                make_variant(vwheel, build, out, lib, version, label,
                             [f"nvidia :: cuda_version_lower_bound :: {label[2:]}.0"], [], ["nvidia"])
    for label, props in (("x86_64_v3", ["x86_64 :: level :: v3"]), ("null", None)):
        make_variant(vwheel, build, out, "numpyish", "2.3.2", label, props, [], ["x86_64"])
    for project, versions in PLAIN.items():
        for version in versions:
            example.plain_wheel(out, project, version, ["filelock"] if project == "triton" else [], "non-variant")
    example.run([vwheel, "generate-index-json", out, "-o", out])
    shutil.rmtree(build)
    base = json.loads((ROOT / "examples" / "profiles" / "no-gpu.json").read_text())
    for name, props in PROFILES.items():
        base["properties"] = props
        (profiles / f"{name}.json").write_text(json.dumps(base))
    print(f"{len(list(out.glob('*.whl')))} wheels, {len(PROFILES)} profiles")


if __name__ == "__main__":
    main(*sys.argv[1:4])
