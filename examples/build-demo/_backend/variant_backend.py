"""setuptools' backend, plus one step: the package records which variant it was built as.

vwheel passes the Building draft's `variant-label` in config_settings (and the properties as
repeated `variant` settings); a backend that knows nothing of variants simply ignores them, and
vwheel adds variant.json to the wheel itself.
"""
import os
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 (the other PEP 517 hooks, unchanged)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    label = (config_settings or {}).get("variant-label", "non-variant")
    # vwheel builds in a copy of the source tree, so writing here is safe.
    Path("src/vdemo/_build.py").write_text(f"BUILD = {label!r}\nCFLAGS = {os.environ.get('CFLAGS', '')!r}\n")
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
