"""Builds the vwheel wheel: the extension vwheel._vwheel and the vwheel command, both by CMake.

The extension and the command are targets of the C++ project one folder up (the option
VWHEEL_BUILD_PYTHON adds the extension). With VWHEEL_CMAKE_BUILD_DIR naming a configured build tree
(scripts/test passes the main build/), that tree builds them, reusing its compiled libvwheel;
otherwise a Release tree without tests is configured in build-python/ of the project.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from distutils.command.build_scripts import build_scripts  # setuptools 66 has no own

HERE = Path(__file__).resolve().parent


def is_project(path: Path) -> bool:
    cmake = path / "CMakeLists.txt"
    return cmake.is_file() and re.search(r"project\(\s*vwheel\b", cmake.read_text(encoding="utf-8")) is not None


def source_root() -> Path:
    """The C++ project: VWHEEL_SOURCE_DIR, else the nearest folder above this one that is the
    project (`vwheel build python/` builds in a copy under python/dist/, and passes no variables
    to the backend), else the source folder of VWHEEL_CMAKE_BUILD_DIR."""
    if os.environ.get("VWHEEL_SOURCE_DIR"):
        return Path(os.environ["VWHEEL_SOURCE_DIR"]).resolve()
    for parent in HERE.parents:
        if is_project(parent):
            return parent
    tree = os.environ.get("VWHEEL_CMAKE_BUILD_DIR")
    if tree and (Path(tree) / "CMakeCache.txt").is_file():
        m = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$",
                      (Path(tree) / "CMakeCache.txt").read_text(encoding="utf-8"), re.M)
        if m and is_project(Path(m.group(1))):
            return Path(m.group(1))
    raise RuntimeError(f"{HERE}: no folder above is the vwheel C++ project; set VWHEEL_SOURCE_DIR "
                       "to it (or VWHEEL_CMAKE_BUILD_DIR to a build tree of it)")


ROOT = source_root()


def project_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    m = re.search(r"project\(\s*vwheel\s+VERSION\s+([0-9][0-9.]*)", text)
    if not m:
        raise RuntimeError(f"{ROOT / 'CMakeLists.txt'}: no `project(vwheel VERSION X.Y.Z)`")
    return m.group(1)


def cmake_tree() -> Path:
    """Configures the build tree (once per setup.py run) and returns it."""
    reuse = os.environ.get("VWHEEL_CMAKE_BUILD_DIR")
    if reuse:
        tree = Path(reuse).resolve()
        if not (tree / "CMakeCache.txt").is_file():
            raise RuntimeError(f"VWHEEL_CMAKE_BUILD_DIR={reuse}: not a configured CMake build tree")
        extra = []
    else:
        # Beside the project's own build trees (ignored by git), kept between builds.
        tree = ROOT / "build-python"
        extra = ["-DCMAKE_BUILD_TYPE=Release", "-DVWHEEL_BUILD_TESTS=OFF"]
        if shutil.which("ninja"):
            extra += ["-G", "Ninja"] if not (tree / "CMakeCache.txt").exists() else []
    if not getattr(cmake_tree, "configured", False):
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(tree), "-DVWHEEL_BUILD_PYTHON=ON",
                               f"-DPython_EXECUTABLE={sys.executable}", *extra])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(tree), "-j", jobs, "--target", "_vwheel", "vwheel"])
        cmake_tree.configured = True
    return tree


class CMakeBuildExt(build_ext):
    """Builds vwheel._vwheel with CMake and copies it where setuptools expects it."""

    def build_extension(self, ext: Extension) -> None:
        tree = cmake_tree()
        built = list((tree / "python").glob("_vwheel*.so"))
        if len(built) != 1:
            raise RuntimeError(f"{tree / 'python'}: expected one _vwheel*.so, found {built}")
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], dest)


class CommandScript(build_scripts):
    """The wheel's data script is the compiled `vwheel` command (as uv's wheel carries `uv`): copied
    as it is, where build_scripts would rewrite a text script's #! line."""

    def run(self) -> None:
        tree = cmake_tree()
        Path(self.build_dir).mkdir(parents=True, exist_ok=True)
        dest = Path(self.build_dir) / "vwheel"
        shutil.copyfile(tree / "vwheel", dest)
        dest.chmod(0o755)


setup(
    version=project_version(),
    ext_modules=[Extension("vwheel._vwheel", sources=[])],
    # The name of the data script; CommandScript provides the file.
    scripts=["vwheel"],
    cmdclass={"build_ext": CMakeBuildExt, "build_scripts": CommandScript},
    zip_safe=False,
)
