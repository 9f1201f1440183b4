"""Builds real wheel files for the integration tests (with Python's zipfile, independent of vwheel)."""
import base64
import hashlib
import json
import struct
import zipfile
from pathlib import Path


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(directory, filename, files=None, *, dist_info=None, variant_json=None, extra_members=None,
               record=True, scripts=None, compression=zipfile.ZIP_DEFLATED, requires=(), requires_python=None):
    """Writes `directory/filename`, a wheel with METADATA, WHEEL, RECORD and `files` (path -> bytes).

    `variant_json` (a dict or str) becomes `<dist-info>/variant.json`; `scripts` (name -> bytes)
    go into `.data/scripts` with mode 0755; `extra_members` are written as given (no RECORD line);
    `requires` become the METADATA's Requires-Dist lines, `requires_python` its Requires-Python.
    """
    parts = filename[:-4].split("-")
    name, version = parts[0], parts[1]
    dist_info = dist_info or f"{name}-{version}.dist-info"
    members = []
    files = dict(files if files is not None else {f"{name.lower()}/__init__.py": b"VALUE = 1\n"})
    for path, data in files.items():
        members.append((path, data, 0o644))
    for sname, data in (scripts or {}).items():
        members.append((f"{name}-{version}.data/scripts/{sname}", data, 0o755))
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires)
    if requires_python:
        metadata += f"Requires-Python: {requires_python}\n"
    members.append((f"{dist_info}/METADATA", metadata.encode(), 0o644))
    members.append((f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: wheelfactory\nRoot-Is-Purelib: true\nTag: py3-none-any\n", 0o644))
    if variant_json is not None:
        text = variant_json if isinstance(variant_json, str) else json.dumps(variant_json, indent=4, sort_keys=True)
        members.append((f"{dist_info}/variant.json", text.encode(), 0o644))
    path = Path(directory) / filename
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        lines = []
        for mpath, data, mode in members:
            info = zipfile.ZipInfo(mpath, date_time=(2024, 5, 6, 7, 8, 10))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = compression
            zf.writestr(info, data)
            lines.append(f"{mpath},{record_hash(data)},{len(data)}\n")
        for mpath, data in (extra_members or {}).items():
            info = zipfile.ZipInfo(mpath, date_time=(2024, 5, 6, 7, 8, 10))
            info.external_attr = 0o100644 << 16
            zf.writestr(info, data)
        if record:
            lines.append(f"{dist_info}/RECORD,,\n")
            info = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2024, 5, 6, 7, 8, 10))
            info.external_attr = 0o100644 << 16
            info.compress_type = compression
            zf.writestr(info, "".join(lines))
    return path


def raw_member(path, info: zipfile.ZipInfo) -> bytes:
    """The member's local header and compressed bytes exactly as stored in the file."""
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        header = f.read(30)
        assert header[:4] == b"PK\x03\x04", f"{path}: no local header for {info.filename}"
        n, m = struct.unpack("<HH", header[26:30])
        rest = f.read(n + m + info.compress_size)
        return header + rest


def compressed_bytes(path, info: zipfile.ZipInfo) -> bytes:
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        header = f.read(30)
        n, m = struct.unpack("<HH", header[26:30])
        f.seek(info.header_offset + 30 + n + m)
        return f.read(info.compress_size)


def verify_record(path):
    """Checks every RECORD hash and size against the wheel's members; returns the rows."""
    with zipfile.ZipFile(path) as zf:
        records = [n for n in zf.namelist() if n.endswith(".dist-info/RECORD")]
        assert len(records) == 1, records
        import csv
        import io
        rows = list(csv.reader(io.StringIO(zf.read(records[0]).decode())))
        listed = set()
        for row in rows:
            if not row:
                continue
            p, h, size = row
            listed.add(p)
            if p == records[0]:
                assert h == "" and size == ""
                continue
            data = zf.read(p)
            assert h == record_hash(data), f"{path}: RECORD hash of {p}"
            assert int(size) == len(data), f"{path}: RECORD size of {p}"
        assert listed == set(n for n in zf.namelist() if not n.endswith("/")), "RECORD lists every member"
        return rows
