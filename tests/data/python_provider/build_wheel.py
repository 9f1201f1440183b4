#!/usr/bin/env python3
"""Builds fixture_provider-1.0-py3-none-any.whl from ./fixture_provider with zipfile alone (no
build backend, no network), for vwheel's Python provider tests.

usage: build_wheel.py OUTDIR    (prints the wheel's path)
"""

import base64
import hashlib
import pathlib
import sys
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
NAME, VERSION = "fixture_provider", "1.0"


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def main():
    out_dir = pathlib.Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    dist_info = NAME + "-" + VERSION + ".dist-info"
    files = {}
    package = HERE / NAME
    for path in sorted(package.rglob("*.py")):
        files[NAME + "/" + path.relative_to(package).as_posix()] = path.read_bytes()
    files[dist_info + "/METADATA"] = (
        "Metadata-Version: 2.1\nName: fixture-provider\nVersion: " + VERSION + "\n"
        "Summary: variant provider fixture for vwheel's tests\n"
    ).encode()
    files[dist_info + "/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: vwheel-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[dist_info + "/entry_points.txt"] = b"[variant_plugins]\nfictional_hw = fixture_provider:GoodPlugin\n"
    record = dist_info + "/RECORD"
    lines = [name + "," + record_hash(data) + "," + str(len(data)) for name, data in files.items()]
    lines.append(record + ",,")
    files[record] = ("\n".join(lines) + "\n").encode()

    wheel = out_dir / (NAME + "-" + VERSION + "-py3-none-any.whl")
    tmp = wheel.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    tmp.replace(wheel)
    print(wheel)


if __name__ == "__main__":
    main()
