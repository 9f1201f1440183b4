#!/usr/bin/env bash
# `vwheel build` of 4 variants of a small C extension (setuptools, -march per variant) with -j 2,
# against 4 sequential `python3 -m build --wheel --no-isolation` runs of the same tree (one per
# CFLAGS), Debian's interpreter and backend both times. Reports each wall time (best of RUNS) and
# the share of vwheel's build time spent outside the backend's hooks (its --timings line; goal
# under 10%: copying the tree, checking and re-zipping the wheel, the index file).
# Usage: bench/build_variants.sh [RUNS]   (VWHEEL_BIN=path/to/vwheel; default build/vwheel)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
vw=${VWHEEL_BIN:-build/vwheel}
py=/usr/bin/python3
[ -x "$vw" ] || { echo "no $vw: build it (cmake --build build --target vwheel) or set VWHEEL_BIN" >&2; exit 1; }
$py -m build --version >/dev/null 2>&1 || { echo "python3 -m build is needed (apt-get install python3-build)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vwheel-build-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/cbench
mkdir -p "$src/cbench"
levels="v1 v2 v3 v4"
march() { case $1 in v1) echo x86-64 ;; *) echo "x86-64-$1" ;; esac; }
{
  cat <<'TOML'
[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "cbench"
version = "1.0"

[tool.setuptools]
packages = ["cbench"]

[variant.default-priorities]
namespace = ["x86_64"]

[variant.providers.x86_64]
requires = ["provider-variant-x86-64 >=0.0.1"]
plugin-api = "provider_variant_x86_64.plugin:X8664Plugin"
TOML
  for l in $levels; do printf '\n[variant.variants.%s]\nx86_64.level = ["%s"]\n' "$l" "$l"; done
  for l in $levels; do
    printf '\n[tool.vwheel.build.variants.%s]\nenvironment = { CFLAGS = "-O2 -march=%s" }\n' "$l" "$(march "$l")"
  done
} > "$src/pyproject.toml"
cat > "$src/setup.py" <<'PYSRC'
from setuptools import Extension, setup
setup(ext_modules=[Extension("cbench._native", ["cbench/_native.c"])])
PYSRC
echo 'from ._native import dot' > "$src/cbench/__init__.py"
cat > "$src/cbench/_native.c" <<'C'
#define PY_SSIZE_T_CLEAN
#include <Python.h>
/* A loop the compiler vectorizes differently per -march. */
static PyObject *dot(PyObject *self, PyObject *args) {
    double s = 0; for (int i = 0; i < 1024; ++i) s += (double)i * (double)(1024 - i);
    return PyFloat_FromDouble(s);
}
static PyMethodDef methods[] = {{"dot", dot, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods};
PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
C

now() { date +%s.%N; }
best_vwheel=""; best_build=""; share=""
for run in $(seq "$runs"); do
  rm -rf "$work/dist-vw" "$work/dist-pb"
  t0=$(now)
  "$vw" build "$src" -o "$work/dist-vw" --all-variants --no-isolation --python $py -j 2 --timings \
    >/dev/null 2>"$work/timings.txt"
  t1=$(now)
  for l in $levels; do
    # What one maintainer runs per variant without vwheel: one tree copy each, as build does in-tree.
    rm -rf "$work/tree" && cp -r "$src" "$work/tree"
    CFLAGS="-O2 -march=$(march "$l")" $py -m build --wheel --no-isolation -o "$work/dist-pb/$l" "$work/tree" >/dev/null 2>&1
  done
  t2=$(now)
  vwt=$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}"); pbt=$(awk "BEGIN{printf \"%.2f\", $t2 - $t1}")
  line=$(grep 'timings: all builds' "$work/timings.txt")
  echo "run $run: vwheel build -j 2: ${vwt} s; 4 x python3 -m build: ${pbt} s; $line"
  if [ -z "$best_vwheel" ] || awk "BEGIN{exit !($vwt < $best_vwheel)}"; then best_vwheel=$vwt; share=$line; fi
  if [ -z "$best_build" ] || awk "BEGIN{exit !($pbt < $best_build)}"; then best_build=$pbt; fi
done
[ "$(ls "$work/dist-vw"/*.whl | wc -l)" = 4 ] || { echo "vwheel did not build 4 wheels" >&2; exit 1; }
echo "best: vwheel build -j 2 (4 variants): ${best_vwheel} s; 4 sequential python3 -m build: ${best_build} s"
echo "outside the backend (best vwheel run): ${share#*: all builds: }"
