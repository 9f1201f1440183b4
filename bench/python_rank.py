#!/usr/bin/env python3
"""In-process `vwheel.rank` against running the `vwheel rank` command, on torch's variants file.

Usage: bench/python_rank.py [VARIANTS_JSON] [--target PROFILE] [--calls N] [--runs M]
Run it with an interpreter that has the vwheel wheel installed (its `vwheel` command beside the
interpreter, or VWHEEL_BIN). Defaults: ../shared's torch-2.9.0-variants.json (else
examples/torch-2.9.0-variants.json), the cuda12.8-sm90 profile, 1,000 calls against 10 runs.
Both rank the same file for the same profile, and their answers are checked to be equal first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import vwheel

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    shared_torch = ROOT.parent / "shared" / "data" / "real-variants" / "variants-index-gh-pages" / "v0.0.2" / "torch"
    default_file = shared_torch / "torch-2.9.0-variants.json"
    if not default_file.exists():
        default_file = ROOT / "examples" / "torch-2.9.0-variants.json"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants_json", nargs="?", default=str(default_file))
    ap.add_argument("--target", default=str(ROOT / "examples" / "profiles" / "cuda12.8-sm90.json"))
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()

    binary = os.environ.get("VWHEEL_BIN") or shutil.which(
        "vwheel", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if not binary:
        print("no vwheel command: set VWHEEL_BIN", file=sys.stderr)
        return 2
    cmd = [binary, "rank", args.variants_json, "--target", args.target]

    expected = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    got = vwheel.rank(args.variants_json, args.target)
    if got != expected:
        print(f"answers differ: in-process {got}, command {expected}", file=sys.stderr)
        return 1

    for _ in range(20):  # warm-up of both
        vwheel.rank(args.variants_json, args.target)
    subprocess.run(cmd, capture_output=True, check=True)

    start = time.perf_counter()
    for _ in range(args.calls):
        vwheel.rank(args.variants_json, args.target)
    in_process = (time.perf_counter() - start) / args.calls

    start = time.perf_counter()
    for _ in range(args.runs):
        subprocess.run(cmd, capture_output=True, check=True)
    command = (time.perf_counter() - start) / args.runs

    print(f"file: {args.variants_json}  target: {args.target}  ({len(got)} labels)")
    print(f"in-process vwheel.rank: {in_process * 1e3:8.3f} ms per call ({args.calls} calls)")
    print(f"vwheel rank (command):  {command * 1e3:8.3f} ms per run  ({args.runs} runs)")
    print(f"ratio: in-process is {command / in_process:.1f}x faster per call (goal: >= 20x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
