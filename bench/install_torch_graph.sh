#!/usr/bin/env bash
# A torch CUDA install as it really is: not one big wheel but torch and the sixteen wheels its CUDA
# 12.8 build pins (nvidia-* runtimes and triton, the names, versions and requirements of torch
# 2.9.0's METADATA), each at its real download size times SCALE, all made by
# bench/make_torch_wheel.py (deflated .so members compressing about 2:1) and served by
# `vwheel index serve`. In one run:
#   1. `curl` of every wheel (all at once, `curl -Z`), then `unzip -q` of each: the naive floor
#   2. `pip install --no-cache-dir --no-compile torch` into a fresh venv (resolving from the index)
#   3. `vwheel install torch`, empty cache, fresh venv: wall time, CPU, peak RSS (the 256 MiB bound
#      of issue 17 holds for the whole graph, with several large wheels arriving at once)
#   4. `vwheel install torch`, warm cache, another fresh venv
#   5. with BEFORE=path/to/another/vwheel: that build's empty-cache install too (an A/B in one run)
# Nothing is deleted until the end (see bench/install_torch.sh). Prints the ratios.
# Usage: bench/install_torch_graph.sh [VWHEEL_BIN] [WORKDIR]   (SCALE=0.25 by default, 1.0 is the
#   real 4.1 GB of wheels, 8 GB installed; PYTHON=/usr/bin/python3; KEEP=1 keeps WORKDIR)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-torch-graph.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
SCALE=${SCALE:-0.25}
export XDG_CACHE_HOME=$WORK/xdg-cache PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null
unset PIP_NO_CACHE_DIR PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS
. "$ROOT/bench/common.sh"

# name version download-MB .so-count .py-count requirements (`;`-separated). Sizes: the
# manylinux x86_64 wheels on PyPI, rounded.
GRAPH="torch 2.9.0 899 - - nvidia-cuda-nvrtc-cu12==12.8.93;nvidia-cuda-runtime-cu12==12.8.90;nvidia-cuda-cupti-cu12==12.8.90;nvidia-cudnn-cu12==9.10.2.21;nvidia-cublas-cu12==12.8.4.1;nvidia-cufft-cu12==11.3.3.83;nvidia-curand-cu12==10.3.9.90;nvidia-cusolver-cu12==11.7.3.90;nvidia-cusparse-cu12==12.5.8.93;nvidia-cusparselt-cu12==0.7.1;nvidia-nccl-cu12==2.27.5;nvidia-nvshmem-cu12==3.3.20;nvidia-nvtx-cu12==12.8.90;nvidia-nvjitlink-cu12==12.8.93;nvidia-cufile-cu12==1.13.1.3;triton==3.5.0
nvidia-cudnn-cu12 9.10.2.21 706 12 20 nvidia-cublas-cu12
nvidia-cublas-cu12 12.8.4.1 594 4 10 -
nvidia-nccl-cu12 2.27.5 322 2 10 -
nvidia-cusparse-cu12 12.5.8.93 288 2 10 nvidia-nvjitlink-cu12
nvidia-cusparselt-cu12 0.7.1 287 2 10 -
nvidia-cusolver-cu12 11.7.3.90 268 3 10 nvidia-cublas-cu12;nvidia-nvjitlink-cu12;nvidia-cusparse-cu12
nvidia-cufft-cu12 11.3.3.83 193 2 10 nvidia-nvjitlink-cu12
triton 3.5.0 155 20 600 -
nvidia-nvshmem-cu12 3.3.20 125 6 10 -
nvidia-cuda-nvrtc-cu12 12.8.93 88 3 10 -
nvidia-curand-cu12 10.3.9.90 63 2 10 -
nvidia-nvjitlink-cu12 12.8.93 39 2 10 -
nvidia-cuda-cupti-cu12 12.8.90 10 8 60 -
nvidia-cuda-runtime-cu12 12.8.90 1 3 10 -
nvidia-cufile-cu12 1.13.1.3 1 3 10 -
nvidia-nvtx-cu12 12.8.90 1 3 40 -"

echo "== generating torch and the 16 wheels it pins (scale $SCALE) in $WORK"
mkdir -p "$WORK/wheels"
seed=0
while read -r name version mb so py requires; do
  seed=$((seed + 1))
  args=(--name "$name" --version "$version" --seed "$seed"
        --scale "$("$PYTHON" -c "print(max($mb * $SCALE / 885, 0.0005))")")
  [ "$so" = - ] || args+=(--so "$so")
  [ "$py" = - ] || args+=(--py "$py")
  if [ "$requires" != - ]; then
    IFS=';' read -ra reqs <<<"$requires"
    for r in "${reqs[@]}"; do args+=(--requires "$r"); done
  fi
  echo "$PYTHON $ROOT/bench/make_torch_wheel.py $WORK/wheels/${name//-/_}-$version-py3-none-any.whl ${args[*]}"
done <<<"$GRAPH" | xargs -P "$(nproc)" -I{} sh -c '{} >/dev/null'
ls "$WORK/wheels" | wc -l | grep -qx 17 || { echo "the generator did not write 17 wheels" >&2; exit 1; }
WHEELS_MB=$(du -smc "$WORK"/wheels/*.whl | tail -1 | cut -f1)
"$VWHEEL" index build "$WORK/wheels" -o "$WORK/site" --quiet
start_server "$WORK/serve.out" "$VWHEEL" index serve "$WORK/site" --port 0
URLS=()
for w in "$WORK"/wheels/*.whl; do
  n=$(basename "$w")
  project=$(echo "${n%%-*}" | tr _ -)
  page="${URL%/}/$project/"
  href=$(curl -sf "$page" | sed -n "s/.*href=\"\([^\"#]*$n\)[#\"].*/\1/p" | head -1)
  URLS+=("$("$PYTHON" -c 'import sys, urllib.parse; print(urllib.parse.urljoin(sys.argv[1], sys.argv[2]))' "$page" "$href")")
done
echo "serving $URL: 17 wheels, $WHEELS_MB MiB"

: >"$WORK/results"
R=$WORK/round
mkdir -p "$R/dl"
measure curl-unzip bash -c 'cd "$0/dl" && curl -sfZ --remote-name-all "${@}" && for w in *.whl; do unzip -q -o "$w" -d ../unzipped; done' \
  "$R" "${URLS[@]}"
"$PYTHON" -m venv "$R/pip"
measure pip "$R/pip/bin/python" -m pip install -q --no-cache-dir --no-compile --index-url "$URL" torch
"$VWHEEL" venv "$R/vw1" --python "$PYTHON" >/dev/null
measure vwheel-empty-cache "$VWHEEL" install -q --cache-dir "$R/vwcache" --index-url "$URL" --python "$R/vw1/bin/python" torch
"$VWHEEL" venv "$R/vw2" --python "$PYTHON" >/dev/null
measure vwheel-warm-cache "$VWHEEL" install -q --cache-dir "$R/vwcache" --index-url "$URL" --python "$R/vw2/bin/python" torch
envs="pip vw1 vw2"
if [ -n "${BEFORE:-}" ]; then
  "$VWHEEL" venv "$R/vw3" --python "$PYTHON" >/dev/null
  measure before-empty-cache "$BEFORE" install -q --cache-dir "$R/vwcache-before" --index-url "$URL" \
    --python "$R/vw3/bin/python" torch
  envs="$envs vw3"
fi
for env in $envs; do
  n=$(ls -d "$R/$env"/lib/python3*/site-packages/*.dist-info | wc -l)
  [ "$n" -ge 17 ] || { echo "$env: $n distributions installed, expected 17" >&2; exit 1; }
done
cmp <(cd "$R/vw1"/lib/python3*/site-packages && find nvidia_cublas_cu12 torch -type f | sort | xargs sha256sum) \
    <(cd "$R/pip"/lib/python3*/site-packages && find nvidia_cublas_cu12 torch -type f | sort | xargs sha256sum) >/dev/null \
  || { echo "vwheel's and pip's trees differ" >&2; exit 1; }
TREE_MB=$(du -sm "$R/unzipped" | cut -f1)

"$PYTHON" - "$WORK/results" "$WHEELS_MB" "$TREE_MB" <<'PY'
import sys
r = {}
for line in open(sys.argv[1]):
    name, t, kib, u, k = line.split()
    r[name] = (float(t), int(kib), float(u) + float(k))
print(f"== torch and 16 pinned wheels: {sys.argv[2]} MiB of wheels, {sys.argv[3]} MiB installed")
print(f"{'':20} {'seconds':>8} {'CPU seconds':>12} {'peak RSS MiB':>13}")
for name, (t, kib, cpu) in r.items():
    print(f"{name:20} {t:8.2f} {cpu:12.2f} {kib / 1024:13.0f}")
cold, warm = r["vwheel-empty-cache"][0], max(r["vwheel-warm-cache"][0], 0.001)
print(f"vwheel empty cache / (curl + unzip): {cold / r['curl-unzip'][0]:.2f}x")
print(f"pip / vwheel empty cache:            {r['pip'][0] / cold:.1f}x")
print(f"pip / vwheel warm cache:             {r['pip'][0] / warm:.1f}x")
if "before-empty-cache" in r:
    print(f"BEFORE / vwheel empty cache:         {r['before-empty-cache'][0] / cold:.2f}x")
rss = max(r["vwheel-empty-cache"][1], r["vwheel-warm-cache"][1])
print(f"vwheel peak RSS: {rss / 1024:.0f} MiB (bound 256)")
PY
