#!/usr/bin/env python3
"""Writes many variant wheels for the generate-index-json benchmark: PACKAGES packages x VARIANTS
variants each, every wheel about KB kilobytes (random stored payload + a variant.json).
Usage: make_variant_wheels.py DIR [--packages 100] [--variants 10] [--kb 1024]"""
import argparse
import json
import os
import zipfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--packages", type=int, default=100)
    ap.add_argument("--variants", type=int, default=10)
    ap.add_argument("--kb", type=int, default=1024)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    payload = os.urandom(a.kb * 1024)
    for p in range(a.packages):
        name = f"pkg{p}"
        for v in range(a.variants):
            label = f"v{v}"
            doc = {
                "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
                "default-priorities": {"namespace": ["bench"]},
                "variants": {label: {"bench": {"id": [str(v)]}}},
            }
            di = f"{name}-1.0.dist-info"
            with zipfile.ZipFile(os.path.join(a.dir, f"{name}-1.0-py3-none-any-{label}.whl"), "w") as zf:
                zf.writestr(f"{name}/payload.bin", payload)
                zf.writestr(f"{name}/__init__.py", "")
                zf.writestr(f"{di}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
                zf.writestr(f"{di}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
                zf.writestr(f"{di}/variant.json", json.dumps(doc, indent=4, sort_keys=True) + "\n")
                zf.writestr(f"{di}/RECORD", "")


if __name__ == "__main__":
    main()
