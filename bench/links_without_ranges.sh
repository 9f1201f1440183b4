#!/usr/bin/env bash
# A --find-links server without Range support (as `python3 -m http.server`), listing large wheels
# without PEP 658 metadata or hashes: an application requiring LIBS libraries of MB MiB each and
# one of BIG MiB (over the 64 MiB vwheel takes of a whole answer into memory; BIG=0: none, so that
# builds that fail on it can be compared). Each wheel's
# METADATA can only be read from the whole file. For each binary: an empty-cache `install`, then
# an empty-cache `lock` followed by the `sync` of that lock; the time and how many MiB the server
# sent (the floor is the wheels' own size: each sent once). pip's `install` from the same page is
# the baseline (it downloads each wheel once). With BEFORE=path/to/another/vwheel, that binary
# too, with caches of its own (an A/B in one run).
# Usage: bench/links_without_ranges.sh [VWHEEL_BIN] [WORKDIR]   (LIBS=16 MB=20 BIG=80, PYTHON, KEEP=1)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-noranges.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
LIBS=${LIBS:-16}
MB=${MB:-20}
BIG=${BIG:-80}
. "$ROOT/bench/common.sh"

"$PYTHON" -c '
import os, sys, zipfile
sys.path.insert(0, sys.argv[1])
from wheelfactory import make_wheel
d, libs, mb, big = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
os.makedirs(d, exist_ok=True)
names = [f"lib{i}" for i in range(libs)] + (["big"] if big > 0 else [])
for n in names:
    size = (big if n == "big" else mb) << 20
    make_wheel(d, f"{n}-1.0-py3-none-any.whl", {f"{n}/__init__.py": b"", f"{n}/blob.bin": os.urandom(size)},
               compression=zipfile.ZIP_STORED)
make_wheel(d, "app-1.0-py3-none-any.whl", {"app/__init__.py": b""}, requires=names)
' "$ROOT/tests/integration" "$WORK/links" "$LIBS" "$MB" "$BIG"
floor=$(du -cb "$WORK"/links/*.whl | tail -1 | cut -f1)  # bytes

export SENT_LOG=$WORK/sent.log
touch "$SENT_LOG"
start_server "$WORK/serve.out" "$PYTHON" "$ROOT/bench/slow_links_server.py" "$WORK/links" 0 "$WORK/requests.log"
echo "== $(ls "$WORK"/links/*.whl | wc -l) wheels, $((floor >> 20)) MiB, at $URL (no Range support)"
printf '%-34s %8s %10s %8s\n' "run" "seconds" "MiB sent" "x floor"

# measure NAME CMD...: runs CMD, prints its time and the MiB the server sent meanwhile.
measure() {
  local name=$1
  shift
  local before start end
  before=$(wc -l <"$SENT_LOG")
  start=$(now)
  if ! "$@" >/dev/null 2>"$WORK/err"; then  # a row that says so (the BEFORE build may fail here)
    printf '%-34s   failed: %s\n' "$name" "$(tail -1 "$WORK/err" | cut -c1-100)"
    return 0
  fi
  end=$(now)
  tail -n +"$((before + 1))" "$SENT_LOG" | awk -v n="$name" -v t="$(echo "$end - $start" | bc)" -v f="$floor" \
    '{ s += $3 } END { printf "%-34s %8.2f %10.0f %8.2f\n", n, t, s / 1048576, s / f }'
}

"$PYTHON" -m venv "$WORK/pip"
measure "pip install (no cache)" "$WORK/pip/bin/python" -m pip install -q --no-cache-dir --no-compile --no-index \
  --find-links "$URL" app
run() {
  local tag=$1 bin=$2 w=$WORK/$1
  "$bin" venv "$w/venv" --python "$PYTHON" >/dev/null
  measure "$tag install (empty cache)" "$bin" install -q --no-index --find-links "$URL" --cache-dir "$w/cache" \
    --python "$w/venv/bin/python" app
  "$bin" venv "$w/synced" --python "$PYTHON" >/dev/null
  measure "$tag lock (empty cache)" "$bin" lock -q --no-index --find-links "$URL" --cache-dir "$w/cache2" \
    --python "$PYTHON" -o "$w/pylock.toml" app
  measure "$tag sync of that lock" "$bin" sync -q "$w/pylock.toml" --cache-dir "$w/cache2" --python "$w/synced/bin/python"
}
[ -n "${BEFORE:-}" ] && run BEFORE "$BEFORE"
run vwheel "$VWHEEL"
