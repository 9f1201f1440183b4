#!/usr/bin/env bash
# Install-from-sdists benchmark, vwheel against pip on the same --find-links folder, in one run:
#   a top project (a wheel) requiring 20 pure-Python projects that exist only as sdists (flit_core
#   backend, Metadata 2.1 PKG-INFO, so neither tool can skip the backend's metadata step), and a
#   flit_core wheel (made from Debian's installed flit_core) for the isolated build environments;
#   1. cold: `pip install --no-index --find-links DIR top` into a fresh venv against
#      `vwheel install --no-index --find-links DIR top`, both with empty caches, both building the
#      20 sdists in isolated environments (target: vwheel >= 2x faster);
#   2. warm: the same into other fresh venvs, pip with its wheel cache from 1, vwheel with its
#      built-wheel cache from 1 (target: vwheel >= 20x faster).
# Venv creation is not timed; each timed command starts after `sync`. RUNS rounds (default 3),
# medians printed. Usage: bench/install_sdists.sh [VWHEEL_BIN] [WORKDIR]
#   (PYTHON=/usr/bin/python3 by default; KEEP=1 keeps WORKDIR; N=20 projects)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-bench.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
RUNS=${RUNS:-3}
N=${N:-20}
export XDG_CACHE_HOME=$WORK/xdg-cache PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null
unset PIP_NO_CACHE_DIR PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS
mkdir -p "$WORK"
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.1f}')"; }
median() { python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }

echo "== $N sdist-only projects and a flit_core wheel in $WORK/links"
mkdir -p "$WORK/links"
PYTHONPATH=$ROOT/tests/integration "$PYTHON" - "$WORK/links" "$N" <<'PY'
import io, sys, tarfile
from pathlib import Path
import flit_core
from wheelfactory import make_wheel

out, n = Path(sys.argv[1]), int(sys.argv[2])

def add(tar, name, text):
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), 0o644, 1700000000
    tar.addfile(info, io.BytesIO(data))

for i in range(n):
    name, version = f"benchsd_{i:02d}", "1.0"
    root = f"{name}-{version}"
    pyproject = (
        '[build-system]\nrequires = ["flit_core>=3.2,<4"]\nbuild-backend = "flit_core.buildapi"\n\n'
        f'[project]\nname = "{name}"\nversion = "{version}"\ndescription = "bench project {i}"\n'
        'requires-python = ">=3.8"\n'
    )
    with tarfile.open(out / f"{root}.tar.gz", "w:gz") as tar:
        add(tar, f"{root}/pyproject.toml", pyproject)
        add(tar, f"{root}/{name}/__init__.py", f'"""Bench project {i}."""\n' + "def f():\n    return 1\n" * 50)
        add(tar, f"{root}/PKG-INFO", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: bench project {i}\n")

# The build environments' backend: Debian's flit_core as a wheel (neither tool may download).
pkg = Path(flit_core.__file__).parent
files = {f"flit_core/{p.relative_to(pkg)}": p.read_bytes() for p in pkg.rglob("*.py")}
make_wheel(out, f"flit_core-{flit_core.__version__}-py3-none-any.whl", files)

top = make_wheel(out, "benchsd_top-1.0-py3-none-any.whl", {"benchsd_top/__init__.py": b""})
# make_wheel writes Name and Version only: the top project needs the 20.
import zipfile
from wheelfactory import record_hash
with zipfile.ZipFile(top) as zf:
    members = [(info, zf.read(info)) for info in zf.infolist()]
meta = "Metadata-Version: 2.1\nName: benchsd_top\nVersion: 1.0\n" + "".join(
    f"Requires-Dist: benchsd_{i:02d}\n" for i in range(n))
record = []
with zipfile.ZipFile(top, "w", zipfile.ZIP_DEFLATED) as zf:
    for info, data in members:
        if info.filename.endswith("/METADATA"):
            data = meta.encode()
        if info.filename.endswith("/RECORD"):
            data = ("".join(record) + info.filename + ",,\n").encode()
        else:
            record.append(f"{info.filename},{record_hash(data)},{len(data)}\n")
        zf.writestr(zipfile.ZipInfo(info.filename, date_time=info.date_time), data)
PY

pip_venv() { rm -rf "$1" && "$PYTHON" -m venv "$1"; }
vw_venv() { rm -rf "$1" && "$VWHEEL" venv "$1" --python "$PYTHON" >/dev/null; }
count() { ls -d "$1"/lib/python3*/site-packages/benchsd_[0-9]*.dist-info | wc -l; }
timed() { sync; local t0; t0=$(now); "$@" >/dev/null; elapsed "$t0" "$(now)"; }
links=(--no-index --find-links "$WORK/links")

pip_cold=() vw_cold=() pip_warm=() vw_warm=()
for run in $(seq "$RUNS"); do
  rm -rf "$WORK/pipcache" "$WORK/vwcache"
  pip_venv "$WORK/pip1"; vw_venv "$WORK/vw1"
  pip_cold+=("$(timed "$WORK/pip1/bin/python" -m pip install -q --cache-dir "$WORK/pipcache" "${links[@]}" benchsd_top)")
  vw_cold+=("$(timed "$VWHEEL" install -q --cache-dir "$WORK/vwcache" "${links[@]}" --python "$WORK/vw1/bin/python" benchsd_top)")
  [ "$(count "$WORK/pip1")" = "$N" ] && [ "$(count "$WORK/vw1")" = "$N" ] || { echo "expected $N projects each" >&2; exit 1; }
  pip_venv "$WORK/pip2"; vw_venv "$WORK/vw2"
  pip_warm+=("$(timed "$WORK/pip2/bin/python" -m pip install -q --cache-dir "$WORK/pipcache" "${links[@]}" benchsd_top)")
  vw_warm+=("$(timed "$VWHEEL" install -q --cache-dir "$WORK/vwcache" "${links[@]}" --python "$WORK/vw2/bin/python" benchsd_top)")
  [ "$(count "$WORK/pip2")" = "$N" ] && [ "$(count "$WORK/vw2")" = "$N" ] || { echo "expected $N projects each" >&2; exit 1; }
  echo "run $run: cold pip ${pip_cold[-1]}s vwheel ${vw_cold[-1]}s; warm pip ${pip_warm[-1]}s vwheel ${vw_warm[-1]}s"
done
pc=$(median "${pip_cold[@]}") vc=$(median "${vw_cold[@]}") pw=$(median "${pip_warm[@]}") vw=$(median "${vw_warm[@]}")
echo "== medians of $RUNS runs ($N sdists, $(nproc) cores)"
echo "cold (both build): pip ${pc}s   vwheel ${vc}s   speedup $(ratio "$pc" "$vc")x (target >= 2x)"
echo "warm (built-wheel caches): pip ${pw}s   vwheel ${vw}s   speedup $(ratio "$pw" "$vw")x (target >= 20x)"
