#!/usr/bin/env bash
# Installer benchmarks, vwheel against pip and unzip on the same files, in one run:
#   1. 50 small wheels into a fresh venv: `vwheel install` vs `pip install --no-index --find-links`
#      (target: vwheel >= 10x faster);
#   2. one big wheel (make_big_wheel.py, default 20,000 members / 520 MB) into a fresh venv vs
#      `unzip -q` into the same file system, vwheel cache cold (dropped) and warm
#      (targets: cold <= 1.5x unzip, warm <= 0.3x unzip).
# Usage: bench/install.sh [VWHEEL_BIN] [WORKDIR]   (PYTHON=/usr/bin/python3 by default)
#   SMALL_ONLY=1: only part 1.  RUNS=N: repeat part 1 N times (fresh venvs each time) and report
#   the medians (default 1). MEMBERS/MEGABYTES size the big wheel.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-bench.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
MEMBERS=${MEMBERS:-20000}
MEGABYTES=${MEGABYTES:-520}
RUNS=${RUNS:-1}
SMALL_ONLY=${SMALL_ONLY:-}
export XDG_CACHE_HOME=$WORK/cache PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
mkdir -p "$WORK"
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }
median() { python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }

echo "== building inputs in $WORK"
mkdir -p "$WORK/small"
PYTHONPATH=$ROOT/tests/integration "$PYTHON" - "$WORK/small" <<'PY'
import sys
from wheelfactory import make_wheel
d = sys.argv[1]
for i in range(50):
    name = f"bench{i:02d}"
    make_wheel(d, f"{name}-1.0-py3-none-any.whl",
               {f"{name}/__init__.py": b"VALUE = 1\n", f"{name}/mod.py": b"def main():\n    return 0\n",
                f"{name}-1.0.dist-info/entry_points.txt": f"[console_scripts]\n{name} = {name}.mod:main\n".encode()})
PY
if [ -z "$SMALL_ONLY" ]; then
  "$PYTHON" "$ROOT/bench/make_big_wheel.py" "$WORK/bigpkg-1.0-py3-none-any.whl" --members "$MEMBERS" --megabytes "$MEGABYTES" >/dev/null
fi
BIG=$WORK/bigpkg-1.0-py3-none-any.whl

names=$(cd "$WORK/small" && ls *.whl | sed 's/-1.0-py3-none-any.whl//')

echo "== 50 small wheels (${RUNS} run(s), medians; load: $(cut -d' ' -f1-3 /proc/loadavg))"
t_files=() t_fl=() t_pip=()
for run in $(seq "$RUNS"); do
  rm -rf "$WORK/v1" && "$VWHEEL" venv "$WORK/v1" --python "$PYTHON" >/dev/null
  t0=$(now); "$VWHEEL" install --no-cache --python "$WORK/v1/bin/python" "$WORK"/small/*.whl >/dev/null; t1=$(now)
  t_files+=("$(elapsed "$t0" "$t1")")
  rm -rf "$WORK/v1b" && "$VWHEEL" venv "$WORK/v1b" --python "$PYTHON" >/dev/null
  t0=$(now); "$VWHEEL" install $names --python "$WORK/v1b/bin/python" --find-links "$WORK/small" >/dev/null; t1=$(now)
  t_fl+=("$(elapsed "$t0" "$t1")")
  rm -rf "$WORK/pipvenv" && "$PYTHON" -m venv "$WORK/pipvenv"   # a fresh venv with pip, for the pip run
  t0=$(now); "$WORK/pipvenv/bin/python" -m pip install -q --no-index --find-links "$WORK/small" $names; t1=$(now)
  t_pip+=("$(elapsed "$t0" "$t1")")
  echo "run $run: vwheel files ${t_files[-1]}s  --find-links ${t_fl[-1]}s  pip ${t_pip[-1]}s"
done
vw_small=$(median "${t_files[@]}")
vw_small_fl=$(median "${t_fl[@]}")
pip_small=$(median "${t_pip[@]}")
echo "vwheel (files, no cache): ${vw_small}s   vwheel --find-links: ${vw_small_fl}s   pip: ${pip_small}s"
echo "speedup vs pip: $(ratio "$pip_small" "$vw_small")x (files)  $(ratio "$pip_small" "$vw_small_fl")x (--find-links)  (target >= 10x)"
if [ -n "$SMALL_ONLY" ]; then
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
  exit 0
fi

echo "== one big wheel ($(du -h "$BIG" | cut -f1), $MEMBERS members)"
rm -rf "$WORK/unz" && mkdir "$WORK/unz" && sync
t0=$(now); unzip -q "$BIG" -d "$WORK/unz"; t1=$(now)
unzip_t=$(elapsed "$t0" "$t1")
rm -rf "$WORK/unz"
rm -rf "$XDG_CACHE_HOME/vwheel/wheels" "$WORK/v2" && "$VWHEEL" venv "$WORK/v2" --python "$PYTHON" >/dev/null && sync
t0=$(now); "$VWHEEL" install --python "$WORK/v2/bin/python" "$BIG" >/dev/null; t1=$(now)
cold=$(elapsed "$t0" "$t1")
rm -rf "$WORK/v3" && "$VWHEEL" venv "$WORK/v3" --python "$PYTHON" >/dev/null && sync
t0=$(now); "$VWHEEL" install --python "$WORK/v3/bin/python" "$BIG" >/dev/null; t1=$(now)
warm=$(elapsed "$t0" "$t1")
rm -rf "$WORK/v4" && "$VWHEEL" venv "$WORK/v4" --python "$PYTHON" >/dev/null && sync
t0=$(now); "$VWHEEL" install --no-cache --python "$WORK/v4/bin/python" "$BIG" >/dev/null; t1=$(now)
nocache=$(elapsed "$t0" "$t1")
echo "unzip -q: ${unzip_t}s   vwheel cold: ${cold}s   warm: ${warm}s   no cache: ${nocache}s"
echo "cold/unzip: $(ratio "$cold" "$unzip_t") (target <= 1.5)   warm/unzip: $(ratio "$warm" "$unzip_t") (target <= 0.3)   no-cache/unzip: $(ratio "$nocache" "$unzip_t")"
[ -n "${KEEP:-}" ] || rm -rf "$WORK"
