#!/usr/bin/env bash
# Install-from-index benchmark, vwheel against pip on the same local index, in one run:
#   a local index of 50 small projects (2 versions each, pure non-variant wheels) whose top project
#   pulls in all 50 through a dependency tree with version constraints (some dependencies pin `<2`, so
#   the resolver must look at both versions), served by `vwheel index serve` on 127.0.0.1;
#   1. cold cache: `pip install --index-url URL bench-00` into a fresh venv vs
#      `vwheel install --index-url URL bench-00` into a fresh venv (target: vwheel >= 10x faster);
#   2. warm cache: the same again into other fresh venvs, each tool keeping its cache from 1.
#      (target: vwheel >= 30x faster).
# Venv creation is not timed; each timed command starts after `sync`. RUNS rounds (default 3) of
# both, medians printed. Usage: bench/install_index.sh [VWHEEL_BIN] [WORKDIR]
#   (PYTHON=/usr/bin/python3 by default; KEEP=1 keeps WORKDIR)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-bench.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
RUNS=${RUNS:-3}
export XDG_CACHE_HOME=$WORK/xdg-cache PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null
unset PIP_NO_CACHE_DIR PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS
mkdir -p "$WORK"
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.1f}')"; }

server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

echo "== building a 50-project index in $WORK"
mkdir -p "$WORK/wheels"
PYTHONPATH=$ROOT/tests/integration "$PYTHON" - "$WORK/wheels" <<'PY'
import sys, zipfile
from wheelfactory import make_wheel, record_hash

N = 50
d = sys.argv[1]

def requires(i, version):
    # A binary tree: bench-i needs bench-(2i+1) and bench-(2i+2). Every third child is pinned below 2.0
    # (so 2.0, the newest, must be rejected for it), the others need >=1.0; version 2.0 also needs its
    # parent's sibling subtree a second time through a shared leaf, so the graph is not a pure tree.
    out = []
    for c in (2 * i + 1, 2 * i + 2):
        if c < N:
            out.append(f"bench-{c:02d}<2.0" if c % 3 == 0 else f"bench-{c:02d}>=1.0")
    if version == "2.0" and i > 0 and i != N - 1:
        out.append(f"bench-{N - 1:02d}>=1.0")
    return out

for i in range(N):
    for version in ("1.0", "2.0"):
        name = f"bench_{i:02d}"
        path = make_wheel(d, f"{name}-{version}-py3-none-any.whl",
                          {f"{name}/__init__.py": f"VERSION = {version!r}\n".encode(),
                           f"{name}/mod.py": b"def main():\n    return 0\n" * 20})
        # make_wheel writes Name and Version only: add Requires-Dist (and fix RECORD).
        with zipfile.ZipFile(path) as zf:
            members = [(info, zf.read(info)) for info in zf.infolist()]
        meta = f"Metadata-Version: 2.1\nName: bench-{i:02d}\nVersion: {version}\nRequires-Python: >=3.8\n"
        meta += "".join(f"Requires-Dist: {r}\n" for r in requires(i, version))
        record = []
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for info, data in members:
                if info.filename.endswith("/METADATA"):
                    data = meta.encode()
                if info.filename.endswith("/RECORD"):
                    data = ("".join(record) + info.filename + ",,\n").encode()
                else:
                    record.append(f"{info.filename},{record_hash(data)},{len(data)}\n")
                new = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                new.external_attr = info.external_attr
                new.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(new, data)
PY
"$VWHEEL" index build "$WORK/wheels" -o "$WORK/site" --quiet

"$VWHEEL" index serve "$WORK/site" --port 0 >"$WORK/serve.out" 2>"$WORK/serve.log" &
server=$!
for _ in $(seq 100); do grep -q '^Serving' "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/^Serving .* on \(http:[^ ]*\)$/\1/p' "$WORK/serve.out")
[ -n "$URL" ] || { echo "vwheel index serve did not start: $(cat "$WORK/serve.log")" >&2; exit 1; }
echo "serving $URL"

pip_venv() { rm -rf "$1" && "$PYTHON" -m venv "$1"; }
vw_venv() { rm -rf "$1" && "$VWHEEL" venv "$1" --python "$PYTHON" >/dev/null; }
count() { ls -d "$1"/lib/python3*/site-packages/bench_*.dist-info | wc -l; }
median() { python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }
# Each timed command starts after `sync`, so that neither tool pays for the write-back of the
# files the previous command left dirty.
timed() { sync; local t0; t0=$(now); "$@" >/dev/null; elapsed "$t0" "$(now)"; }

pip_cold=() vw_cold=() pip_warm=() vw_warm=()
for run in $(seq "$RUNS"); do
  rm -rf "$WORK/pipcache" "$WORK/vwcache"
  pip_venv "$WORK/pip1"; vw_venv "$WORK/vw1"
  pip_cold+=("$(timed "$WORK/pip1/bin/python" -m pip install -q --cache-dir "$WORK/pipcache" --index-url "$URL" bench-00)")
  vw_cold+=("$(timed "$VWHEEL" install -q --cache-dir "$WORK/vwcache" --index-url "$URL" --python "$WORK/vw1/bin/python" bench-00)")
  [ "$(count "$WORK/pip1")" = 50 ] && [ "$(count "$WORK/vw1")" = 50 ] || { echo "expected 50 projects each" >&2; exit 1; }
  pip_venv "$WORK/pip2"; vw_venv "$WORK/vw2"
  pip_warm+=("$(timed "$WORK/pip2/bin/python" -m pip install -q --cache-dir "$WORK/pipcache" --index-url "$URL" bench-00)")
  vw_warm+=("$(timed "$VWHEEL" install -q --cache-dir "$WORK/vwcache" --index-url "$URL" --python "$WORK/vw2/bin/python" bench-00)")
  [ "$(count "$WORK/pip2")" = 50 ] && [ "$(count "$WORK/vw2")" = 50 ] || { echo "expected 50 projects each" >&2; exit 1; }
  echo "run $run: cold pip ${pip_cold[-1]}s vwheel ${vw_cold[-1]}s; warm pip ${pip_warm[-1]}s vwheel ${vw_warm[-1]}s"
done
"$PYTHON" - "$WORK/pip1" "$WORK/vw1" <<'PY'
import sys
from pathlib import Path
def versions(v):
    return sorted(p.name for p in Path(v).glob("lib/python3*/site-packages/bench_*.dist-info"))
a, b = versions(sys.argv[1]), versions(sys.argv[2])
if a != b:
    sys.exit(f"pip and vwheel chose different versions: {sorted(set(a) ^ set(b))}")
print(f"same {len(a)} versions chosen ({sum('-1.0.' in n for n in a)} at 1.0, {sum('-2.0.' in n for n in a)} at 2.0)")
PY
pc=$(median "${pip_cold[@]}") vc=$(median "${vw_cold[@]}") pw=$(median "${pip_warm[@]}") vw=$(median "${vw_warm[@]}")
echo "== medians of $RUNS runs"
echo "cold cache: pip ${pc}s   vwheel ${vc}s   speedup $(ratio "$pc" "$vc")x (target >= 10x)"
echo "warm cache: pip ${pw}s   vwheel ${vw}s   speedup $(ratio "$pw" "$vw")x (target >= 30x)"
