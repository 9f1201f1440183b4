#!/usr/bin/env bash
# `vwheel index build` over 10,000 small wheels (1,000 projects x 2 versions x 5 wheels: 3 plain,
# 2 variant wheels merged into one *-variants.json per version): the full build from an empty
# site (target < 10 s on the 2-core reference VM) and the rebuild with nothing changed (target
# well under 1 s), with hyperfine.
# Usage: bench/index_build.sh [WHEELS]   (VWHEEL_BIN=path/to/vwheel to skip building build-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
wheels_total=${1:-10000}
if [ -n "${VWHEEL_BIN:-}" ]; then
  vw=$VWHEEL_BIN
else
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DVWHEEL_BUILD_BENCH=ON -DVWHEEL_BUILD_TESTS=OFF >/dev/null
  cmake --build build-bench -j"$(nproc 2>/dev/null || echo 2)" --target vwheel >/dev/null
  vw=build-bench/vwheel
fi
command -v hyperfine >/dev/null || { echo "hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vwheel-index-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
wheels=$work/wheels
site=$work/site
json=$work/hyperfine.json

python3 - "$wheels" "$wheels_total" <<'PY'
import base64, hashlib, json, os, sys, zipfile
out, total = sys.argv[1], int(sys.argv[2])
os.makedirs(out)
schema = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
def rec(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
n = 0
project = 0
while n < total:
    name = f"bench_pkg{project}"
    for version in ("1.0", "1.1"):
        di = f"{name}-{version}.dist-info"
        for tag, label in (("py3", None), ("cp311", None), ("cp312", None), ("py3", "v3"), ("py3", "v4")):
            if n >= total:
                break
            members = [(f"{name}/__init__.py", f"VERSION = {version!r}\n".encode() + os.urandom(512).hex().encode()),
                       (f"{di}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                          f"Requires-Python: >=3.8\nSummary: benchmark package\n\nText.\n".encode()),
                       (f"{di}/WHEEL", f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: {tag}-none-any\n".encode())]
            filename = f"{name}-{version}-{tag}-none-any" + (f"-{label}" if label else "") + ".whl"
            if label:
                doc = {"$schema": schema, "default-priorities": {"namespace": ["x86_64"]},
                       "variants": {label: {"x86_64": {"level": [label]}}}}
                members.append((f"{di}/variant.json", json.dumps(doc, indent=4, sort_keys=True).encode()))
            with zipfile.ZipFile(os.path.join(out, filename), "w", zipfile.ZIP_DEFLATED) as zf:
                lines = []
                for path, data in members:
                    zf.writestr(path, data)
                    lines.append(f"{path},{rec(data)},{len(data)}\n")
                zf.writestr(f"{di}/RECORD", "".join(lines) + f"{di}/RECORD,,\n")
            n += 1
    project += 1
PY
count=$(find "$wheels" -name '*.whl' | wc -l)
echo "== vwheel index build: $count wheels, $(du -sm "$wheels" | cut -f1) MB, $(nproc) CPUs"
"$vw" index build "$wheels" -o "$site" 2>&1 | sed 's/^vwheel: /  first build: /'

# Each full build starts from an empty site. The previous one is moved aside, not deleted: on
# ext4 without a journal, creating files right after deleting thousands of others costs seconds
# of kernel time (the allocator skips recently deleted inodes), which would measure `rm -rf`.
hyperfine --runs 5 --prepare "mv $site $work/old-\$(date +%s%N)" --export-json "$json.full" \
  "$vw index build $wheels -o $site -q" >/dev/null
hyperfine -N --warmup 2 --runs 20 --export-json "$json.noop" \
  "$vw index build $wheels -o $site -q" >/dev/null
touch "$wheels/bench_pkg0-1.0-py3-none-any.whl"
hyperfine -N --runs 10 --prepare "touch $wheels/bench_pkg0-1.0-py3-none-any.whl" --export-json "$json.touch" \
  "$vw index build $wheels -o $site -q" >/dev/null
python3 - "$json" "$count" <<'PY'
import json, sys
base, n = sys.argv[1], int(sys.argv[2])
full = json.load(open(base + ".full"))["results"][0]
noop = json.load(open(base + ".noop"))["results"][0]
touch = json.load(open(base + ".touch"))["results"][0]
print(f"  full build:             {full['mean']:7.3f} s +- {full['stddev']:.3f}  ({full['mean'] * 1e6 / n:.0f} us per wheel); "
      f"ratio to the 10 s target: {full['mean'] / 10:.3f}")
print(f"  rebuild, nothing new:   {noop['mean'] * 1000:7.1f} ms +- {noop['stddev'] * 1000:.1f}; ratio to 1 s: {noop['mean']:.3f}")
print(f"  rebuild, one touched:   {touch['mean'] * 1000:7.1f} ms +- {touch['stddev'] * 1000:.1f}")
PY
