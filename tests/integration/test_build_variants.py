"""`vwheel build` beyond pure-Python wheels: providers whose plugin fills `static-properties` at build
time (`build-requires`, the Building draft), a C extension compiled per variant and installed per
profile, backends that write outside their output folder, and variant wheels that disagree.
"""
import json
import subprocess
import sys
import zipfile
from pathlib import Path

from wheelfactory import make_wheel

PY = "/usr/bin/python3"  # Debian's interpreter: python3-setuptools, python3-wheel, python3-dev (scripts/bootstrap)

SETUPTOOLS_HEAD = """\
[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "{backend}"
{backend_path}
[project]
name = "{name}"
version = "1.0"

[tool.setuptools]
packages = ["{package}"]
"""

X86_PROVIDER = """
[variant.providers.x86_64]
requires = ["provider-variant-x86-64 >=0.0.1"]
plugin-api = "provider_variant_x86_64.plugin:X8664Plugin"
"""

# A build-time plugin as the Building draft's example has it; COMPATIBLE is replaced per test.
BLAS_PLUGIN = """\
from dataclasses import dataclass

@dataclass
class _Config:
    name: str
    values: list
    multi_value: bool

class Plugin:
    namespace = "blas_lapack"
    all_properties_compatible = COMPATIBLE

    def get_supported_configs(self):
        return [_Config("library", ["openblas", "mkl"], False), _Config("threading", ["openmp", "serial"], False)]

    def get_all_configs(self):
        return self.get_supported_configs()
"""

BLAS_PROJECT = SETUPTOOLS_HEAD + """
[variant.default-priorities]
namespace = ["x86_64", "blas_lapack"]
""" + X86_PROVIDER + """
[variant.providers.blas_lapack]
build-requires = ["blas-plugin >=1.0"]
plugin-api = "blas_plugin:Plugin"

[variant.variants.null]

[variant.variants.openblas]
blas_lapack.library = ["openblas"]
x86_64.level = ["v1"]

[variant.variants.mkl]
blas_lapack.library = ["{mkl_value}"]
"""


def write_tree(root, pyproject, files):
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(pyproject)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def variant_json(path):
    with zipfile.ZipFile(path) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/variant.json")]
        return json.loads(z.read(name))


def plugin_wheel(directory, compatible=True):
    directory.mkdir(parents=True, exist_ok=True)
    source = BLAS_PLUGIN.replace("COMPATIBLE", "True" if compatible else "False")
    return make_wheel(directory, "blas_plugin-1.0-py3-none-any.whl", {"blas_plugin.py": source.encode()})


def interpreter_with_plugin(vwheel, tmp_path, compatible=True):
    """A venv that sees Debian's setuptools (system site packages) and has the plugin installed."""
    venv = tmp_path / "buildenv"
    subprocess.run([PY, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    wheel = plugin_wheel(tmp_path / "plugin", compatible)
    r = vwheel("install", wheel, "--python", venv / "bin" / "python", "--no-index")
    assert r.rc == 0, r.err
    return venv / "bin" / "python"


def blas_project(root, mkl_value="mkl"):
    return write_tree(root, BLAS_PROJECT.format(backend="setuptools.build_meta", backend_path="", name="blas-demo",
                                                package="blas_demo", mkl_value=mkl_value),
                      {"blas_demo/__init__.py": "VALUE = 1\n"})


def check_static_properties(dist):
    wheels = sorted(p.name for p in dist.glob("*.whl"))
    assert wheels == ["blas_demo-1.0-py3-none-any-mkl.whl", "blas_demo-1.0-py3-none-any-null.whl",
                      "blas_demo-1.0-py3-none-any-openblas.whl"], wheels
    for name in wheels:
        vj = variant_json(dist / name)
        provider = vj["providers"]["blas_lapack"]
        assert "build-requires" not in provider and "plugin-api" not in provider and "requires" not in provider, provider
        assert provider.get("install-time") is False, provider
        # The plugin's answer, in its order; both features ordered since there are two.
        assert vj["static-properties"]["blas_lapack"] == {"library": ["openblas", "mkl"],
                                                          "threading": ["openmp", "serial"]}, vj
        assert vj["default-priorities"]["feature"]["blas_lapack"] == ["library", "threading"], vj
        assert vj["providers"]["x86_64"]["requires"] == ["provider-variant-x86-64 >=0.0.1"], vj
    index = json.loads((dist / "blas_demo-1.0-variants.json").read_text())
    assert index["static-properties"]["blas_lapack"]["library"] == ["openblas", "mkl"], index
    assert sorted(index["variants"]) == ["mkl", "null", "openblas"], index


def test_build_requires_fill_static_properties_from_the_plugin(vwheel, tmp_path):
    python = interpreter_with_plugin(vwheel, tmp_path)
    project = blas_project(tmp_path / "proj")
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", python, "-j", "2")
    assert r.rc == 0, r.err
    check_static_properties(dist)


def test_build_requires_are_installed_into_the_isolated_environment(vwheel, tmp_path):
    from test_build import debian_wheels
    links = debian_wheels(tmp_path / "links")
    plugin_wheel(links)
    project = blas_project(tmp_path / "proj")
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--all-variants", "--python", PY, "-f", links, "--no-index", "-j", "2")
    assert r.rc == 0, r.err
    check_static_properties(dist)


def test_build_requires_missing_from_the_interpreter_are_named(vwheel, tmp_path):
    project = blas_project(tmp_path / "proj")
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--variant", "mkl", "--no-isolation", "--python", PY)
    assert r.rc == 1
    assert ("variant `mkl`: build requirements missing from the interpreter's environment (--no-isolation): "
            "`blas-plugin >=1.0` (not installed)") in r.err, r.err
    assert not dist.exists()


def test_a_plugin_without_all_properties_compatible_is_refused(vwheel, tmp_path):
    python = interpreter_with_plugin(vwheel, tmp_path, compatible=False)
    project = blas_project(tmp_path / "proj")
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--variant", "mkl", "--no-isolation", "--python", python)
    assert r.rc == 1
    assert ("vwheel: error: variant `mkl`: variant.providers.blas_lapack.build-requires: its plugin does not set "
            "`all_properties_compatible = True`, so it cannot fill static-properties at build time") in r.err, r.err
    assert not dist.exists()


def test_a_property_the_plugin_does_not_support_is_refused(vwheel, tmp_path):
    python = interpreter_with_plugin(vwheel, tmp_path)
    project = blas_project(tmp_path / "proj", mkl_value="accelerate")
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--variant", "mkl", "--variant", "openblas", "--no-isolation",
               "--python", python)
    assert r.rc == 1
    assert ("vwheel: error: variant `mkl`: `blas_lapack :: library :: accelerate`: `accelerate` is not among the "
            "values the `blas_lapack` plugin (variant.providers.blas_lapack.build-requires) supports: openblas, mkl"
            ) in r.err, r.err
    assert sorted(p.name for p in dist.iterdir()) == ["blas_demo-1.0-py3-none-any-openblas.whl",
                                                      "blas_demo-1.0-variants.json"]


def test_build_requires_rules_in_pyproject(vwheel, tmp_path):
    project = blas_project(tmp_path / "proj")
    text = (project / "pyproject.toml").read_text()
    # make-variant cannot run the build-time plugin: it points to `vwheel build`.
    wheel = make_wheel(tmp_path, "blas_demo-1.0-py3-none-any.whl")
    r = vwheel("make-variant", wheel, "-p", "blas_lapack :: library :: mkl", "--pyproject", project / "pyproject.toml",
               "-o", tmp_path / "out")
    assert r.rc == 1
    assert "the static-properties of `blas_lapack` come from its `build-requires` plugin when the wheel is built; " \
           "build the variants with `vwheel build`" in r.err, r.err
    (project / "pyproject.toml").write_text(text.replace('build-requires = ["blas-plugin >=1.0"]',
                                                         'build-requires = ["blas-plugin >=1.0"]\nrequires = ["x"]'))
    r = vwheel("build", project, "-o", tmp_path / "dist", "--all-variants", "--no-isolation", "--python", PY)
    assert r.rc == 1
    assert "variant.providers.blas_lapack: has both `build-requires` and `requires`" in r.err, r.err


# ---- a C extension built per variant -------------------------------------------------------

C_SOURCE = """\
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* gcc predefines __AVX2__ for -march=x86-64-v3 and not for -march=x86-64: the module tells
   which flags it was compiled with without running any v3 instruction itself. */
static PyObject *which_build(PyObject *self, PyObject *args) {
#ifdef __AVX2__
    return PyUnicode_FromString("v3");
#else
    return PyUnicode_FromString("v1");
#endif
}

static PyMethodDef methods[] = {{"which_build", which_build, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods};
PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
"""

C_PROJECT = SETUPTOOLS_HEAD + """
[variant.default-priorities]
namespace = ["x86_64"]
""" + X86_PROVIDER + """
[variant.variants.v1]
x86_64.level = ["v1"]

[variant.variants.v3]
x86_64.level = ["v3"]

[tool.vwheel.build.variants.v1]
environment = {{ CFLAGS = "-O2 -march=x86-64" }}

[tool.vwheel.build.variants.v3]
environment = {{ CFLAGS = "-O2 -march=x86-64-v3" }}
"""

C_SETUP = """\
from setuptools import Extension, setup
setup(ext_modules=[Extension("cdemo._native", ["cdemo/_native.c"])])
"""


def test_a_c_extension_built_per_level_installs_per_profile(vwheel, tmp_path):
    project = write_tree(tmp_path / "cdemo", C_PROJECT.format(backend="setuptools.build_meta", backend_path="",
                                                              name="cdemo", package="cdemo"),
                         {"setup.py": C_SETUP, "cdemo/_native.c": C_SOURCE,
                          "cdemo/__init__.py": "from ._native import which_build\n"})
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", PY, "-j", "2")
    assert r.rc == 0, r.err
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}" if Path(PY).resolve() == Path(sys.executable).resolve() else None
    wheels = sorted(p.name for p in dist.glob("*.whl"))
    assert len(wheels) == 2 and all("-linux_x86_64-" in w for w in wheels), wheels
    assert [w.rsplit("-", 1)[1] for w in wheels] == ["v1.whl", "v3.whl"], wheels
    if tag:
        assert all(w.startswith(f"cdemo-1.0-{tag}-{tag}-") for w in wheels), wheels
    for level, levels in (("v1", ["v1"]), ("v3", ["v3", "v2", "v1"])):
        profile = tmp_path / f"{level}.json"
        profile.write_text(json.dumps({"properties": {"x86_64": [{"name": "level", "values": levels,
                                                                  "multi_value": False}]}}))
        venv = tmp_path / f"venv-{level}"
        assert vwheel("venv", venv, "--python", PY).rc == 0
        py = venv / "bin" / "python"
        r = vwheel("install", "cdemo", "--find-links", dist, "--no-index", "--python", py, "--target", profile)
        assert r.rc == 0, r.err
        out = subprocess.run([str(py), "-c", "import cdemo; print(cdemo.which_build())"], capture_output=True,
                             text=True, check=True).stdout.strip()
        assert out == level, (level, out)


# ---- backends that write outside their output folder --------------------------------------

HOSTILE_BACKEND = """\
import os
from setuptools import build_meta as _sb
from setuptools.build_meta import get_requires_for_build_wheel

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    fn = _sb.build_wheel(wheel_directory, config_settings, metadata_directory)
    if (config_settings or {{}}).get("variant-label") == {label!r}:
        target = {target}
        with open(os.path.join(wheel_directory, fn), "rb") as f:
            data = f.read()
        with open(target, "wb") as f:
            f.write(data)
    return fn
"""

PLAIN_VARIANTS = """
[variant.default-priorities]
namespace = ["x86_64"]
""" + X86_PROVIDER + """
[variant.variants.v1]
x86_64.level = ["v1"]

[variant.variants.v3]
x86_64.level = ["v3"]
"""


def hostile_project(root, label, target):
    head = SETUPTOOLS_HEAD.format(backend="hostile_backend", backend_path='backend-path = ["_backend"]\n',
                                  name="demo-build", package="demo_build")
    return write_tree(root, head + PLAIN_VARIANTS,
                      {"_backend/hostile_backend.py": HOSTILE_BACKEND.format(label=label, target=target),
                       "demo_build/__init__.py": "VALUE = 42\n"})


def outside(root, skip):
    """Every path under `root` but `skip` (relative), with file contents: the source tree, vwheel's
    cwd, its HOME, cache and config, and whatever else the test made there."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p == skip or skip in p.parents:
            continue
        out[str(p.relative_to(root))] = "<dir>" if p.is_dir() and not p.is_symlink() else (
            p.read_bytes() if p.is_file() else "<link>")
    return out


def test_a_backend_writing_beside_its_source_or_into_home_fails_that_variant(vwheel, tmp_path):
    for target, stray in (('os.path.join("..", "escaped.whl")', "(escaped.whl)"),
                          ('os.path.expanduser("~/stash-" + fn)', "(home/stash-demo_build-1.0-py3-none-any.whl)")):
        project = hostile_project(tmp_path / "proj", "v3", target)
        dist = tmp_path / "dist"
        before = outside(tmp_path, dist)
        r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", PY, "-j", "2")
        assert r.rc == 1, r.err
        assert (f"vwheel: error: variant `v3`: the backend's build_wheel wrote outside its output folder {stray}; "
                "refused") in r.err, r.err
        assert r.err.rstrip().endswith("vwheel: 1 of 2 builds failed: v3"), r.err
        assert sorted(p.name for p in dist.iterdir()) == ["demo_build-1.0-py3-none-any-v1.whl",
                                                          "demo_build-1.0-variants.json"]
        # The backend ran in a copy of the source with its own HOME and TMPDIR, all under dist/:
        # nothing outside dist/ changed (the source tree, the cwd, vwheel's HOME and caches).
        after = outside(tmp_path, dist)
        assert after == before, sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        for p in dist.iterdir():
            p.unlink()
        dist.rmdir()


def test_a_backend_writing_into_the_output_folder_publishes_nothing(vwheel, tmp_path):
    # wheel_directory is {dist}/.vwheel-build-*/job-N/out: three levels up is the output folder.
    project = hostile_project(tmp_path / "proj", "v1", 'os.path.join(wheel_directory, "..", "..", "..", "sneaky.whl")')
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "kept.txt").write_text("the user's\n")
    r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", PY)
    assert r.rc == 1, r.err
    assert (f"vwheel: error: {dist}: a backend wrote sneaky.whl there itself, outside its own output folder; no wheel "
            "was published") in r.err, r.err
    assert sorted(p.name for p in dist.iterdir()) == ["kept.txt", "sneaky.whl"], "no wheel of vwheel's, no index"


# ---- the matrix must agree -----------------------------------------------------------------

# A variant-aware backend that writes variant.json itself, with a plugin-api that differs for v3.
AWARE_BACKEND = """\
import base64, hashlib, json, os, zipfile
from setuptools import build_meta as _sb
from setuptools.build_meta import get_requires_for_build_wheel

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    label = (config_settings or {}).get("variant-label")
    fn = _sb.build_wheel(wheel_directory, config_settings, metadata_directory)
    if not label:
        return fn
    api = "provider_variant_x86_64.other:Plugin" if label == "v3" else "provider_variant_x86_64.plugin:X8664Plugin"
    vj = {"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
          "default-priorities": {"namespace": ["x86_64"]},
          "providers": {"x86_64": {"requires": ["provider-variant-x86-64 >=0.0.1"], "plugin-api": api}},
          "variants": {label: {"x86_64": {"level": [label]}}}}
    out = fn[:-4] + "-" + label + ".whl"
    data = json.dumps(vj).encode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    with zipfile.ZipFile(os.path.join(wheel_directory, fn)) as zin:
        with zipfile.ZipFile(os.path.join(wheel_directory, out), "w") as zout:
            for item in zin.infolist():
                content = zin.read(item)
                if item.filename.endswith(".dist-info/RECORD"):
                    path = item.filename[:-6] + "variant.json"
                    zout.writestr(path, data)
                    # Listed in RECORD, as vwheel checks every wheel as install would.
                    content += ("%s,sha256=%s,%d\\n" % (path, digest, len(data))).encode()
                zout.writestr(item, content)
    os.remove(os.path.join(wheel_directory, fn))
    return out
"""


def test_variant_wheels_that_disagree_publish_nothing(vwheel, tmp_path):
    head = SETUPTOOLS_HEAD.format(backend="aware_backend", backend_path='backend-path = ["_backend"]\n',
                                  name="demo-build", package="demo_build")
    project = write_tree(tmp_path / "proj", head + PLAIN_VARIANTS,
                         {"_backend/aware_backend.py": AWARE_BACKEND, "demo_build/__init__.py": "VALUE = 42\n"})
    dist = tmp_path / "dist"
    r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", PY, "-j", "2")
    assert r.rc == 1, r.err
    assert ("vwheel: error: the variants `v1` and `v3` disagree on providers.x86_64 ({requires = "
            "[provider-variant-x86-64 >=0.0.1], plugin-api = provider_variant_x86_64.plugin:X8664Plugin} vs "
            "{requires = [provider-variant-x86-64 >=0.0.1], plugin-api = provider_variant_x86_64.other:Plugin}); "
            f"no wheel was published to {dist}") in r.err, r.err
    assert not dist.exists(), "the output folder this run created is gone again"


def test_two_labels_with_the_same_properties_publish_nothing(vwheel, tmp_path):
    head = SETUPTOOLS_HEAD.format(backend="setuptools.build_meta", backend_path="", name="demo-build",
                                  package="demo_build")
    text = head + PLAIN_VARIANTS + '\n[variant.variants.v1again]\nx86_64.level = ["v1"]\n'
    project = write_tree(tmp_path / "proj", text, {"demo_build/__init__.py": "VALUE = 42\n"})
    dist = tmp_path / "dist"
    dist.mkdir()
    r = vwheel("build", project, "-o", dist, "--all-variants", "--no-isolation", "--python", PY, "-j", "2")
    assert r.rc == 1, r.err
    assert ("vwheel: error: the variants `v1` and `v1again` have the same properties (x86_64 :: level :: v1); an "
            "installer could not choose between them; no wheel was published to") in r.err, r.err
    assert list(dist.iterdir()) == []
