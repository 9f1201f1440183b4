#!/usr/bin/env python3
"""Writes a torch-shaped wheel for bench/install_torch.sh: a few hundred deflated `.so` members
with a long-tailed size distribution (most small, a few hundred MB at full scale) whose pages
compress about 2:1 like real shared libraries, and ~12,000 small `.py` files; a valid RECORD.
At --scale 1: about 300 `.so` files, 1.7 GB installed, about 0.9 GB of wheel, like a CUDA torch
wheel. --scale shrinks the member sizes and counts (0.1: a 170 MB install). --name, --version,
--requires (repeatable Requires-Dist), --so and --py (member counts) make the other wheels of a
torch-shaped graph (bench/install_torch_graph.sh: the nvidia-* runtimes torch pins).
Usage: make_torch_wheel.py OUT.whl [--scale 1.0] [--seed 825] [--name torch] [--version 2.9.0]
  [--requires REQ]... [--so N] [--py N]"""
import argparse
import base64
import hashlib
import os
import random
import zipfile

MIB = 1 << 20
DATE = (2025, 1, 2, 3, 4, 6)


def b64(digest):
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=825)
    ap.add_argument("--name", default="torch")
    ap.add_argument("--version", default="2.9.0")
    ap.add_argument("--requires", action="append", default=[])
    ap.add_argument("--so", type=int, help="number of .so members (default: 300 at scale 1)")
    ap.add_argument("--py", type=int, help="number of .py members (default: 12,000 at scale 1)")
    a = ap.parse_args()
    package = a.name.replace("-", "_")
    dist_info = f"{package}-{a.version}.dist-info"
    rnd = random.Random(a.seed)
    # A pool of random bytes that the pages draw their incompressible halves from (os.urandom for
    # every page would dominate the generation time); slices start at random offsets, far apart
    # compared with deflate's 32 KiB window, so nothing repeats within reach.
    pool = os.urandom(16 * MIB)

    def page():
        # Half random, half runs of a few distinct bytes (tables, padding): about 2:1.
        start = rnd.randrange(0, len(pool) - 2048)
        return pool[start:start + 2048] + bytes([rnd.randrange(4)]) * 1024 + bytes(1024)

    n_so = a.so if a.so is not None else max(3, round(300 * min(1.0, a.scale ** 0.5)))
    n_py = a.py if a.py is not None else max(10, round(12000 * min(1.0, a.scale ** 0.5)))
    # Long-tailed sizes (Pareto), scaled so that the .so total is ~1.7 GB x scale; the largest
    # is capped at 40% of the total, as libtorch_cuda.so is in a real wheel.
    target = 1.7e9 * a.scale
    raw = [rnd.paretovariate(0.9) for _ in range(n_so)]
    factor = target / sum(raw)
    sizes = [max(4096, min(int(r * factor), int(0.4 * target))) for r in raw]

    records = []
    with zipfile.ZipFile(a.out + ".tmp", "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        def add(name, data, mode=0o644):
            info = zipfile.ZipInfo(name, date_time=DATE)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
            records.append(f"{name},sha256={b64(hashlib.sha256(data).digest())},{len(data)}\n")

        for i in range(n_py):
            lines = rnd.randint(5, 20) if rnd.random() < 0.8 else rnd.randint(50, 2000)
            body = "".join(f"def f{j}(x, y={rnd.randint(0, 10**6)}):\n    return torch_op_{j % 97}(x) + y\n"
                           for j in range(lines))
            add(f"{package}/pkg{i % 150}/mod{i}.py", body.encode())
        for i, size in enumerate(sizes):
            name = f"{package}/lib/lib{i}.so"
            info = zipfile.ZipInfo(name, date_time=DATE)
            info.external_attr = (0o100000 | 0o755) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            h = hashlib.sha256()
            with zf.open(info, "w", force_zip64=size > (1 << 31)) as out:
                left = size
                while left:
                    chunk = b"".join(page() for _ in range(256))[:left]
                    h.update(chunk)
                    out.write(chunk)
                    left -= len(chunk)
            records.append(f"{name},sha256={b64(h.digest())},{size}\n")
        requires = "".join(f"Requires-Dist: {r}\n" for r in a.requires)
        add(f"{dist_info}/METADATA",
            f"Metadata-Version: 2.1\nName: {a.name}\nVersion: {a.version}\n{requires}".encode())
        add(f"{dist_info}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: false\nTag: py3-none-any\n")
        records.append(f"{dist_info}/RECORD,,\n")
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=DATE)
        info.external_attr = 0o100644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, "".join(records))
    os.replace(a.out + ".tmp", a.out)
    print(f"{a.out}: {n_so} .so ({sum(sizes) / 1e6:.0f} MB, largest {max(sizes) / 1e6:.0f} MB), {n_py} .py, "
          f"{os.path.getsize(a.out) / 1e6:.0f} MB file")


if __name__ == "__main__":
    main()
