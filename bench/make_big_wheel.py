#!/usr/bin/env python3
"""Writes a large wheel for the benchmarks: many small deflated .py files plus large stored
binaries (random bytes, like shared libraries), with a valid RECORD.
Usage: make_big_wheel.py OUT.whl [--members 20000] [--megabytes 520]"""
import argparse
import base64
import hashlib
import os
import random
import zipfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--members", type=int, default=20000)
    ap.add_argument("--megabytes", type=int, default=520)
    a = ap.parse_args()
    rnd = random.Random(825)
    n_blobs = 40
    blob_size = a.megabytes * 1024 * 1024 // n_blobs
    records = []
    date = (2025, 1, 2, 3, 4, 6)

    def add(zf, name, data, compress, mode=0o644):
        info = zipfile.ZipInfo(name, date_time=date)
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = compress
        zf.writestr(info, data, compresslevel=1)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        records.append(f"{name},sha256={digest},{len(data)}\n")

    with zipfile.ZipFile(a.out + ".tmp", "w") as zf:
        for i in range(a.members - n_blobs - 3):
            body = "".join(f"def f{j}(x):\n    return x * {rnd.randint(0, 10**6)}\n" for j in range(rnd.randint(1, 30)))
            add(zf, f"bigpkg/sub{i % 100}/mod{i}.py", body.encode(), zipfile.ZIP_DEFLATED)
        for i in range(n_blobs):
            add(zf, f"bigpkg/lib/libblob{i}.so", os.urandom(blob_size), zipfile.ZIP_STORED, 0o755)
        add(zf, "bigpkg-1.0.dist-info/METADATA", b"Metadata-Version: 2.1\nName: bigpkg\nVersion: 1.0\n", zipfile.ZIP_DEFLATED)
        add(zf, "bigpkg-1.0.dist-info/WHEEL", b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\nTag: py3-none-any\n", zipfile.ZIP_DEFLATED)
        records.append("bigpkg-1.0.dist-info/RECORD,,\n")
        info = zipfile.ZipInfo("bigpkg-1.0.dist-info/RECORD", date_time=date)
        info.external_attr = 0o100644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, "".join(records))
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
