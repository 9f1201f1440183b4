"""A tree's state for before/after comparisons: every path below a root with what it is."""
import os
from pathlib import Path

# The environment's run lock (created by the first run) and compiled modules come and go on their own.
TRANSIENT = (".vwheel.lock", "__pycache__")


def tree(root, skip=TRANSIENT):
    """Every path under root (relative): a link's target, `<dir>`, a file's bytes or `<other>`;
    paths with a part in `skip` are left out."""
    out = {}
    for p in sorted(Path(root).rglob("*")):
        rel = p.relative_to(root)
        if any(part in skip for part in rel.parts):
            continue
        if p.is_symlink():
            out[str(rel)] = "<link " + os.readlink(p) + ">"
        elif p.is_dir():
            out[str(rel)] = "<dir>"
        elif p.is_file():
            out[str(rel)] = p.read_bytes()
        else:
            out[str(rel)] = "<other>"
    return out
