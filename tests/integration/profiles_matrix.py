"""The environments matrix of issue 52: 3 platforms x 3 Pythons x CPython/PyPy.

For each environment: the PEP 508 marker variables, the wheel tags in priority order (made with
`packaging.tags`, independent of vwheel) and a vwheel target profile (`--target`) with the same
environment and tags and no variant properties (a machine without GPU or CPU-level providers).

PyPy: PyPy releases exist for Python 3.10 and 3.11 only (PyPy 7.3.x), so the matrix has PyPy 3.10
on each platform and leaves out PyPy 3.12 and 3.13, which do not exist.
"""
import json
from pathlib import Path

from packaging import tags as ptags

PYTHONS = {"3.10": "3.10.12", "3.12": "3.12.3", "3.13": "3.13.1"}
PYPY_PYTHON, PYPY_FULL, PYPY_IMPLEMENTATION = "3.10", "3.10.14", "7.3.17"


def _manylinux(arch, glibc_minor):
    """manylinux_2_N for N from glibc_minor down to 5, each legacy alias right after its
    equivalent (as pip orders them), then linux_ARCH."""
    legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
    out = []
    for minor in range(glibc_minor, 4, -1):
        out.append(f"manylinux_2_{minor}_{arch}")
        if minor in legacy:
            out.append(f"{legacy[minor]}_{arch}")
    return out + [f"linux_{arch}"]


PLATFORMS = {
    "linux": {
        "platforms": _manylinux("x86_64", 36),
        "environment": {"os_name": "posix", "sys_platform": "linux", "platform_system": "Linux",
                        "platform_machine": "x86_64", "platform_release": "6.1.0",
                        "platform_version": "#1 SMP Debian 6.1.0"},
    },
    "macos": {
        "platforms": list(ptags.mac_platforms(version=(14, 0), arch="arm64")),
        "environment": {"os_name": "posix", "sys_platform": "darwin", "platform_system": "Darwin",
                        "platform_machine": "arm64", "platform_release": "23.0.0",
                        "platform_version": "Darwin Kernel Version 23.0.0"},
    },
    "windows": {
        "platforms": ["win_amd64"],
        "environment": {"os_name": "nt", "sys_platform": "win32", "platform_system": "Windows",
                        "platform_machine": "AMD64", "platform_release": "10",
                        "platform_version": "10.0.19045"},
    },
}


class Environment:
    """One machine of the matrix: `name`, `environment` (marker variables), `tags` (strings, most
    preferred first) and `profile()` (the vwheel target profile as a dict)."""

    def __init__(self, name, environment, tags):
        self.name = name
        self.environment = environment
        self.tags = tags

    def profile(self):
        return {"properties": {}, "environment": dict(self.environment), "tags": list(self.tags)}

    def write_profile(self, directory):
        path = Path(directory) / f"profile-{self.name}.json"
        path.write_text(json.dumps(self.profile(), indent=1))
        return path

    def __repr__(self):
        return self.name


def _cpython(platform, python):
    spec = PLATFORMS[platform]
    version = tuple(int(x) for x in python.split("."))
    full = PYTHONS[python]
    env = dict(spec["environment"], python_version=python, python_full_version=full, implementation_name="cpython",
               implementation_version=full, platform_python_implementation="CPython")
    abi = f"cp{version[0]}{version[1]}"
    tags = list(ptags.cpython_tags(python_version=version, abis=[abi], platforms=spec["platforms"]))
    tags += list(ptags.compatible_tags(python_version=version, interpreter=abi, platforms=spec["platforms"]))
    return Environment(f"{platform}-cp{version[0]}{version[1]}", env, _unique(tags))


def _pypy(platform):
    spec = PLATFORMS[platform]
    version = tuple(int(x) for x in PYPY_PYTHON.split("."))
    interpreter = f"pp{version[0]}{version[1]}"
    env = dict(spec["environment"], python_version=PYPY_PYTHON, python_full_version=PYPY_FULL,
               implementation_name="pypy", implementation_version=PYPY_IMPLEMENTATION,
               platform_python_implementation="PyPy")
    abi = f"pypy{version[0]}{version[1]}_pp73"
    tags = list(ptags.generic_tags(interpreter=interpreter, abis=[abi], platforms=spec["platforms"]))
    tags += list(ptags.compatible_tags(python_version=version, interpreter=interpreter, platforms=spec["platforms"]))
    return Environment(f"{platform}-{interpreter}", env, _unique(tags))


def _unique(tags):
    seen, out = set(), []
    for tag in tags:
        text = str(tag)
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def matrix():
    """Every environment: 3 CPythons and PyPy 3.10 on each of the 3 platforms (12 in all)."""
    out = []
    for platform in PLATFORMS:
        out += [_cpython(platform, python) for python in PYTHONS]
        out.append(_pypy(platform))
    return out
