#!/usr/bin/env bash
# make-variant / unmake-variant on a torch-shaped wheel (issue 17: each <= 2x `cp` of the wheel),
# all in one run on the same file: bench/make_torch_wheel.py (a few hundred deflated .so members,
# long-tailed sizes, ~12,000 .py files) at SCALE, then
#   1. `cp` of the wheel (the floor: every byte read once and written once)
#   2. `vwheel make-variant` of it (-p nvidia::cuda_version_lower_bound::12.8; copies members raw)
#   3. `vwheel unmake-variant` of the result
# hyperfine -N, RUNS runs each (median), every output written to the same directory so that each
# command pays the same page-cache writes.
# Usage: bench/make_variant_torch.sh [VWHEEL_BIN] [WORKDIR]   (SCALE=0.25, RUNS=5;
#   PYTHON=/usr/bin/python3; KEEP=1 keeps WORKDIR)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-mkvar.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
SCALE=${SCALE:-0.25}
RUNS=${RUNS:-5}
command -v hyperfine >/dev/null || { echo "hyperfine is needed (scripts/bootstrap installs it)" >&2; exit 1; }
mkdir -p "$WORK"
cleanup() { [ -n "${KEEP:-}" ] || rm -rf "$WORK"; }
trap cleanup EXIT

whl=$WORK/torch-2.9.0-py3-none-any.whl
echo "== generating the torch-shaped wheel (scale $SCALE) in $WORK"
"$PYTHON" "$ROOT/bench/make_torch_wheel.py" "$whl" --scale "$SCALE"
mkdir -p "$WORK/out"
variant=$WORK/out/torch-2.9.0-py3-none-any-cu128.whl
# One variant wheel to unmake, made before timing (hyperfine runs each command on its own).
"$VWHEEL" make-variant "$whl" -o "$WORK/out" -p nvidia::cuda_version_lower_bound::12.8 --label cu128 \
  --skip-provider-validation -j 1 >/dev/null
[ -f "$variant" ] || { echo "make-variant wrote no $variant" >&2; exit 1; }
"$PYTHON" - "$whl" "$variant" <<'PY'
import sys, zipfile
a, b = (zipfile.ZipFile(p) for p in sys.argv[1:3])
members = a.infolist()
size = sum(i.file_size for i in members)
print(f"input: {sum(i.compress_size for i in members) / 2**20:.0f} MiB compressed, {size / 2**20:.0f} MiB "
      f"uncompressed, {len(members)} members; variant wheel: {len(b.infolist())} members")
PY

hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$WORK/r.json" \
  "cp $whl $WORK/out/copy.whl" \
  "$VWHEEL make-variant $whl -o $WORK/out -p nvidia::cuda_version_lower_bound::12.8 --label cu128 --skip-provider-validation -j 1" \
  "$VWHEEL unmake-variant $variant -o $WORK/out/plain -j 1" \
  --setup "mkdir -p $WORK/out/plain" >/dev/null 2>"$WORK/hyperfine.log" || { cat "$WORK/hyperfine.log" >&2; exit 1; }

"$PYTHON" - "$WORK/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["cp", "vwheel make-variant", "vwheel unmake-variant"]
cp = r[0]["median"]
print(f"{'command':24} {'median s':>9} {'min s':>8} {'x cp':>6}  goal")
for i, (name, x) in enumerate(zip(names, r)):
    ratio = x["median"] / cp
    goal = "" if i == 0 else f"<= 2x: {'met' if ratio <= 2 else 'NOT met'}"
    print(f"{name:24} {x['median']:9.3f} {x['min']:8.3f} {ratio:6.2f}  {goal}")
PY
