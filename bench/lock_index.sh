#!/usr/bin/env bash
# Lock and sync benchmark (issue 15) on a torch-shaped --find-links index (bench/make_torch_index.py:
# >= 120 wheels, torch's variants pinning different versions of fifteen variant runtime libraries):
#   1. `vwheel lock torch torchvision`, cold (empty cache) and warm (target: warm < 0.5 s);
#   2. per target profile: `vwheel sync` of that lock into a fresh venv, a second sync (a no-op;
#      target: < 0.2 s), beside `vwheel install torch torchvision --target` into a fresh venv (warm
#      cache), and both give the same distributions.
# Venv creation is not timed; each timed command starts after `sync`. RUNS rounds (default 3),
# medians printed. Usage: bench/lock_index.sh [VWHEEL_BIN] [WORKDIR]   (KEEP=1 keeps WORKDIR)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-lockbench.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
RUNS=${RUNS:-3}
export XDG_CACHE_HOME=$WORK/xdg-cache
mkdir -p "$WORK"
cleanup() { [ -n "${KEEP:-}" ] || rm -rf "$WORK"; }
trap cleanup EXIT
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }
median() { python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }
timed() { sync; local t0; t0=$(now); "$@" >/dev/null; elapsed "$t0" "$(now)"; }
venv() { rm -rf "$1" && "$VWHEEL" venv "$1" --python "$PYTHON" >/dev/null; }
listing() { "$VWHEEL" list --json --python "$1"; }

echo "== building the torch-shaped index in $WORK"
"$PYTHON" "$ROOT/bench/make_torch_index.py" "$VWHEEL" "$WORK/links" "$WORK/profiles"
links=(--no-index --find-links "$WORK/links")
lock=$WORK/pylock.toml

cold=() warm=()
for run in $(seq "$RUNS"); do
  rm -rf "$WORK/cache"
  cold+=("$(timed "$VWHEEL" lock -q --cache-dir "$WORK/cache" torch torchvision "${links[@]}" -o "$lock" --python "$PYTHON")")
  warm+=("$(timed "$VWHEEL" lock -q --cache-dir "$WORK/cache" torch torchvision "${links[@]}" -o "$lock" --python "$PYTHON")")
done
echo "lock: $(grep -c '^\[\[packages\]\]' "$lock") entries, $(grep -c '\.whl"' "$lock") wheels"
echo "lock cold: $(median "${cold[@]}")s   warm: $(median "${warm[@]}")s (target warm < 0.5 s)"

printf '%-16s %10s %10s %10s\n' target sync resync install
for profile in "$WORK"/profiles/*.json; do
  name=$(basename "$profile" .json)
  s=() r=() i=()
  for run in $(seq "$RUNS"); do
    venv "$WORK/s"; venv "$WORK/i"
    s+=("$(timed "$VWHEEL" sync -q --cache-dir "$WORK/cache" "$lock" --python "$WORK/s/bin/python" --target "$profile")")
    r+=("$(timed "$VWHEEL" sync -q --cache-dir "$WORK/cache" "$lock" --python "$WORK/s/bin/python" --target "$profile")")
    i+=("$(timed "$VWHEEL" install -q --cache-dir "$WORK/cache" torch torchvision "${links[@]}" --python "$WORK/i/bin/python" --target "$profile")")
  done
  if [ "$(listing "$WORK/s/bin/python")" != "$(listing "$WORK/i/bin/python")" ]; then
    echo "$name: sync and install differ" >&2; exit 1
  fi
  printf '%-16s %9ss %9ss %9ss\n' "$name" "$(median "${s[@]}")" "$(median "${r[@]}")" "$(median "${i[@]}")"
done
echo "(sync: into a fresh venv; resync: the same sync again, a no-op, target < 0.2 s; install: from the index, warm cache)"
