#!/usr/bin/env bash
# Resolving a torch-shaped graph from a distant --find-links page (issue 17's workload, over a
# network): bench/make_torch_index.py's wheels (torch and torchvision with six variants, fifteen
# runtime libraries pinned per CUDA variant, ~120 wheels, no PEP 658 metadata, no hashes) listed by
# a web server whose every answer takes DELAY seconds (default 0.025, a nearby mirror's round
# trip). For each binary: `vwheel install torch torchvision --target` a CUDA 12.8 profile into a
# fresh venv with an empty cache, again warm into another venv, then --offline, then a universal
# `vwheel lock` of the same with an empty cache; the time and the requests the server saw (all,
# and HEAD). With BEFORE=path/to/another/vwheel, that binary first,
# with a cache of its own (an A/B in one run; pip installs no variant wheels, so another build is
# the baseline). Where the time goes: each request a resolver waits
# for is a round trip; requests made together cost one (torch's pinned runtimes: their METADATA
# read one at a time took 20 round trips in a row, now one step of range requests for all).
# Usage: bench/find_links_latency.sh [VWHEEL_BIN] [WORKDIR]   (DELAY=seconds, PYTHON, KEEP=1)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-links.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
DELAY=${DELAY:-0.025}
export XDG_CACHE_HOME=$WORK/xdg-cache
. "$ROOT/bench/common.sh"

"$PYTHON" "$ROOT/bench/make_torch_index.py" "$VWHEEL" "$WORK/links" "$WORK/profiles" >/dev/null
start_server "$WORK/serve.out" "$PYTHON" "$ROOT/bench/slow_links_server.py" "$WORK/links" "$DELAY" "$WORK/requests.log"
touch "$WORK/requests.log"
echo "== $(ls "$WORK/links" | grep -c '\.whl$') wheels at $URL, ${DELAY}s per answer"

# run NAME BIN VENV CACHE [extra...]: one install (VENV `lock`: a universal lock of the same
# requirements instead, every wheel downloaded to be hashed); prints NAME, seconds, requests
# (HEAD), and the seconds in the global `last`.
last=0
run() {
  local name=$1 bin=$2 venv=$3 cache=$4
  shift 4
  [ "$venv" = lock ] || "$bin" venv "$venv" --python "$PYTHON" >/dev/null
  local before t0 t1 rc=0
  before=$(wc -l <"$WORK/requests.log")
  t0=$(now)
  if [ "$venv" = lock ]; then
    "$bin" lock -q --cache-dir "$cache" --no-index --find-links "$URL" torch torchvision --python "$PYTHON" \
      -o "$cache.pylock.toml" "$@" >/dev/null 2>"$WORK/err" || rc=$?
  else
    "$bin" install -q --cache-dir "$cache" --no-index --find-links "$URL" torch torchvision \
      --target "$WORK/profiles/cuda12.8-sm90.json" --python "$venv/bin/python" "$@" >/dev/null 2>"$WORK/err" || rc=$?
  fi
  t1=$(now)
  last=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
  local log
  log=$(tail -n +"$((before + 1))" "$WORK/requests.log")
  local all heads
  all=$(printf '%s' "$log" | grep -c . || true)
  heads=$(printf '%s' "$log" | grep -c '^HEAD ' || true)
  if [ "$rc" != 0 ]; then
    printf '%-34s failed (exit %s): %s\n' "$name" "$rc" "$(head -c 160 "$WORK/err")"
  else
    printf '%-34s %7.3f s  %4d requests (%d HEAD)\n' "$name" "$last" "$all" "$heads"
  fi
}

declare -A seconds
for which in before this; do
  if [ "$which" = before ]; then bin=${BEFORE:-}; else bin=$VWHEEL; fi
  [ -n "$bin" ] || continue
  run "$which: empty cache" "$bin" "$WORK/$which-a" "$WORK/$which-cache"; seconds[$which-cold]=$last
  run "$which: warm cache, new venv" "$bin" "$WORK/$which-b" "$WORK/$which-cache"; seconds[$which-warm]=$last
  run "$which: --offline, new venv" "$bin" "$WORK/$which-c" "$WORK/$which-cache" --offline
  run "$which: universal lock, empty cache" "$bin" lock "$WORK/$which-lock-cache"; seconds[$which-lock]=$last
done
if [ -n "${BEFORE:-}" ]; then
  python3 -c "print(f'this build against before: empty cache {${seconds[before-cold]} / ${seconds[this-cold]}:.1f}x faster, warm {${seconds[before-warm]} / ${seconds[this-warm]}:.1f}x faster, universal lock {${seconds[before-lock]} / ${seconds[this-lock]}:.1f}x faster')"
fi
