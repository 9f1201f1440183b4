#!/usr/bin/env bash
# Many small wheels in one run (issue 51, finding 7: the commit was quadratic in the wheels, 10 s
# for 3,000 and 61 s for a sync of 10,000). N generated wheels `manyNNNNN-1.0` of one module each,
# into a fresh venv (made by `vwheel venv`, untimed), no cache:
#   1. `vwheel install` of the N files;
#   2. `vwheel sync` of a pylock.toml that lists them (local paths with their sha256).
# With BEFORE=path/to/another/vwheel, that build runs the same commands in the same run, and the
# ratio before/after is printed.
# Usage: bench/sync_many.sh [VWHEEL_BIN] [WORKDIR]   (N=10000, PYTHON, KEEP=1)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-syncmany.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
N=${N:-10000}
BEFORE=${BEFORE:-}
export XDG_CACHE_HOME=$WORK/cache
source "$ROOT/bench/common.sh"

echo "== generating $N one-file wheels and their lock in $WORK"
PYTHONPATH=$ROOT/tests/integration "$PYTHON" - "$WORK/wheels" "$WORK/pylock.toml" "$N" <<'PY'
import hashlib, os, sys
from wheelfactory import make_wheel
out, lock, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out, exist_ok=True)
entries = ['lock-version = "1.0"\ncreated-by = "bench/sync_many.sh"\n']
for i in range(n):
    name = f"many{i:05d}"
    path = make_wheel(out, f"{name}-1.0-py3-none-any.whl", {f"{name}.py": f"VALUE = {i}\n".encode()})
    data = path.read_bytes()
    entries.append(f'[[packages]]\nname = "{name}"\nversion = "1.0"\n'
                   f'wheels = [{{ name = "{path.name}", path = "{path}", size = {len(data)}, '
                   f'hashes = {{ sha256 = "{hashlib.sha256(data).hexdigest()}" }} }}]\n')
with open(lock, "w") as f:
    f.write("\n".join(entries))
PY
wheels=("$WORK"/wheels/*.whl)

# The seconds (wall) and user CPU seconds of the last `measure`. On the shared 2-core VM the wall
# clock mostly waits for the CPU, and the system time depends on the order of the runs (on ext4,
# files created soon after many were deleted, here the previous run's staging directories, cost
# several times the system time in the inode allocator's `recently_deleted`): the user time is
# what compares the builds.
last_times() { tail -1 "$WORK/results" | awk '{printf "%s %s", $(NF-3), $(NF-1)}'; }

# run LABEL BIN: both commands of one build, each into a fresh venv; "wall cpu" in t_install, t_sync.
run() {
  local label=$1 bin=$2
  # Venvs of their own, none deleted before the end (see last_times).
  "$bin" venv "$WORK/$label-install" --python "$PYTHON" >/dev/null
  "$bin" venv "$WORK/$label-sync" --python "$PYTHON" >/dev/null
  measure "$label install" "$bin" install --no-cache --python "$WORK/$label-install/bin/python" "${wheels[@]}"
  t_install=$(last_times)
  measure "$label sync" "$bin" sync --no-cache --python "$WORK/$label-sync/bin/python" "$WORK/pylock.toml"
  t_sync=$(last_times)
  local count
  count=$(find "$WORK/$label-sync" -name 'many*.py' | wc -l)
  [ "$count" -eq "$N" ] || { echo "$label sync installed $count modules of $N" >&2; exit 1; }
}

echo "== $N wheels (columns: seconds, peak RSS KiB, user s, system s; load: $(cut -d' ' -f1-3 /proc/loadavg))"
if [ -n "$BEFORE" ]; then
  run before "$BEFORE"
  before_install=$t_install before_sync=$t_sync
fi
run after "$VWHEEL"
if [ -n "$BEFORE" ]; then
  "$PYTHON" - "$N" "$before_install" "$t_install" "$before_sync" "$t_sync" <<'PY'
import sys
n, times = sys.argv[1], [tuple(map(float, t.split())) for t in sys.argv[2:]]
for what, (before, after) in (("install", times[0:2]), ("sync", times[2:4])):
    print(f"N={n} {what}: wall {before[0]:.2f} s -> {after[0]:.2f} s ({before[0] / max(after[0], 0.01):.1f}x), "
          f"user CPU {before[1]:.2f} s -> {after[1]:.2f} s ({before[1] / max(after[1], 0.01):.1f}x)")
PY
else
  echo "N=$N: install ${t_install% *} s (user CPU ${t_install#* } s)   sync ${t_sync% *} s (user CPU ${t_sync#* } s)"
fi
