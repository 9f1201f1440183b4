"""Builds the vwheel wheel: the extension vwheel._vwheel and the vwheel command, both by CMake.

The extension and the command are targets of the C++ project one folder up (the option
VWHEEL_BUILD_PYTHON adds the extension). With VWHEEL_CMAKE_BUILD_DIR naming a configured build tree
(scripts/test passes the main build/), that tree builds them, reusing its compiled libvwheel;
otherwise a Release tree without tests is configured in build/cmake here.
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
ROOT = HERE.parent


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
        tree = HERE / "build" / "cmake"
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
