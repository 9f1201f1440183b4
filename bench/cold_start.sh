#!/usr/bin/env bash
# Start-up of a cold `vwheel install --no-deps` of one tiny wheel from `vwheel index serve`: a fresh
# --cache-dir each run (so the interpreter is queried, the index page fetched and the wheel
# downloaded) into a fresh venv (made in hyperfine's --prepare, not timed). Compares vwheel builds
# given as arguments (e.g. before and after a change) in one run, with hyperfine.
# Usage: bench/cold_start.sh VWHEEL_BIN [VWHEEL_BIN...]   (RUNS=30, PYTHON=/usr/bin/python3, KEEP=1)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || set -- "$ROOT/build/vwheel"
PYTHON=${PYTHON:-/usr/bin/python3}
RUNS=${RUNS:-30}
WORK=$(mktemp -d /var/tmp/vwheel-cold.XXXXXX)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/wheels"
PYTHONPATH=$ROOT/tests/integration "$PYTHON" - "$WORK/wheels" <<'PY'
import sys
from wheelfactory import make_wheel
make_wheel(sys.argv[1], "tiny-1.0-py3-none-any.whl", {"tiny/__init__.py": b"X = 1\n"})
PY
"$1" index build "$WORK/wheels" -o "$WORK/site" --quiet
"$1" index serve "$WORK/site" --port 0 >"$WORK/serve.out" 2>"$WORK/serve.log" &
server=$!
for _ in $(seq 100); do grep -q '^Serving' "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/^Serving .* on \(http:[^ ]*\)$/\1/p' "$WORK/serve.out")
[ -n "$URL" ] || { echo "vwheel index serve did not start: $(cat "$WORK/serve.log")" >&2; exit 1; }

cmds=()
for bin in "$@"; do
  cmds+=("$bin install -q --no-deps --cache-dir $WORK/cache --index-url $URL --python $WORK/venv/bin/python tiny")
done
hyperfine -N -w 3 -r "$RUNS" --export-json "$WORK/times.json" \
  --prepare "sh -c 'rm -rf $WORK/cache $WORK/venv && $1 venv $WORK/venv --python $PYTHON >/dev/null'" "${cmds[@]}"
"$PYTHON" - "$WORK/times.json" <<'PY'
import json, statistics, sys
for r in json.load(open(sys.argv[1]))["results"]:
    t = [x * 1000 for x in r["times"]]
    print(f"median {statistics.median(t):6.1f} ms  mean {statistics.mean(t):6.1f} ms  min {min(t):6.1f} ms  {r['command'].split()[0]}")
PY
