#!/usr/bin/env bash
# `vwheel lock` from a --find-links page that gives no hashes (nginx's `autoindex`, as many mirrors
# and CI artifact stores serve wheels). PEP 751 wants a sha256 for every wheel, so vwheel downloads
# and hashes each one (as `pip lock` does; Debian 12's pip 23 has no lock command). Two shapes:
#   graph: bench/make_torch_index.py's torch-shaped graph (~126 small wheels, every variant);
#   big:   one torch-sized wheel (bench/make_torch_wheel.py at SCALE, default 1: 0.9 GB).
# For each, in one run: `vwheel lock` from an index of the same wheels that gives hashes (what
# the resolution costs), from the find-links page with an empty cache (seconds, peak RSS), the
# baseline `curl` of every wheel the lock lists (8 at a time, as vwheel downloads) then `sha256sum`,
# the lock again (one HEAD per wheel), --offline, and the `vwheel sync` of the lock (which
# downloads nothing).
# Usage: bench/lock_hashless.sh [VWHEEL_BIN] [WORKDIR]   (SCALE, PYTHON, KEEP=1)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-lockhash.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
SCALE=${SCALE:-1}
NGINX=${NGINX:-/usr/sbin/nginx}
[ -x "$NGINX" ] || { echo "bench/lock_hashless.sh needs nginx (apt-get install nginx-light)" >&2; exit 1; }
mkdir -p "$WORK/ngx"
cleanup() {
  [ -f "$WORK/ngx/nginx.pid" ] && kill "$(cat "$WORK/ngx/nginx.pid")" 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

echo "== generating the wheels in $WORK"
"$PYTHON" "$ROOT/bench/make_torch_index.py" "$VWHEEL" "$WORK/graph" "$WORK/profiles" >/dev/null
mkdir -p "$WORK/big"
"$PYTHON" "$ROOT/bench/make_torch_wheel.py" "$WORK/big/torch-2.9.0-py3-none-any.whl" --scale "$SCALE"
PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$WORK/ngx/nginx.conf" <<EOF
user root;
worker_processes 2;
error_log $WORK/ngx/error.log;
pid $WORK/ngx/nginx.pid;
events { worker_connections 256; }
http {
    access_log $WORK/ngx/access.log;
    client_body_temp_path $WORK/ngx/client_body;
    proxy_temp_path $WORK/ngx/proxy;
    fastcgi_temp_path $WORK/ngx/fastcgi;
    uwsgi_temp_path $WORK/ngx/uwsgi;
    scgi_temp_path $WORK/ngx/scgi;
    sendfile on;
    server { listen 127.0.0.1:$PORT; root $WORK; autoindex on; }
}
EOF
"$NGINX" -p "$WORK/ngx" -c "$WORK/ngx/nginx.conf"
URL="http://127.0.0.1:$PORT"
for _ in $(seq 100); do curl -sf "$URL/graph/" >/dev/null && break; sleep 0.1; done

# measure NAME CMD...: prints NAME, seconds and peak RSS; the seconds in the global `last`.
last=0
measure() {
  local name=$1
  shift
  sync
  /usr/bin/time -f "%e %M" -o "$WORK/time.out" "$@" >/dev/null 2>"$WORK/cmd.err" || {
    echo "$name failed: $(tail -3 "$WORK/cmd.err")" >&2
    exit 1
  }
  read -r last rss <"$WORK/time.out"
  printf '%-40s %8.2f s  %6d MiB peak RSS\n' "$name" "$last" "$((rss / 1024))"
}
# the baseline: every wheel of the lock fetched with curl (8 at a time), then sha256sum of them.
fetch_and_hash() {
  local lock=$1 into=$2
  rm -rf "$into" && mkdir -p "$into"
  grep -o 'url = "[^"]*\.whl"' "$lock" | sed 's/^url = "\(.*\)"$/\1/' |
    xargs -P 8 -n 16 sh -c 'cd "$0" && curl -sfO --remote-name-all "$@"' "$into"
  sha256sum "$into"/*.whl >/dev/null
}
export -f fetch_and_hash

for shape in graph big; do
  if [ "$shape" = graph ]; then req=(torch torchvision); else req=(torch); fi
  cache=$WORK/cache-$shape
  "$VWHEEL" index build "$WORK/$shape" -o "$WORK/site-$shape" -q 2>/dev/null
  lock=("$VWHEEL" lock -q --cache-dir "$cache" --no-index --find-links "$URL/$shape/" --python "$PYTHON" "${req[@]}")
  hashed=("$VWHEEL" lock -q --cache-dir "$cache-hashed" --index-url "$URL/site-$shape/simple/" --python "$PYTHON" "${req[@]}")
  echo "== $shape: $(ls "$WORK/$shape" | grep -c '\.whl$') wheels, $(du -sh --apparent-size "$WORK/$shape" | cut -f1)"
  measure "lock from the index (hashes), empty cache" "${hashed[@]}" -o "$WORK/$shape-0.toml"; reference=$last
  measure "lock from find-links (none), empty cache" "${lock[@]}" -o "$WORK/$shape-1.toml"; cold=$last
  wheels=$(grep -c 'url = "[^"]*\.whl"' "$WORK/$shape-1.toml")
  measure "curl + sha256sum of its $wheels wheels" bash -c 'fetch_and_hash "$@"' _ "$WORK/$shape-1.toml" "$WORK/fetched"; base=$last
  rm -rf "$WORK/fetched"
  heads_before=$(grep -c '"HEAD ' "$WORK/ngx/access.log" || true)
  measure "lock from find-links again" "${lock[@]}" -o "$WORK/$shape-2.toml"; warm=$last
  heads=$(($(grep -c '"HEAD ' "$WORK/ngx/access.log" || true) - heads_before))
  cmp -s "$WORK/$shape-1.toml" "$WORK/$shape-2.toml" || { echo "the second lock differs from the first" >&2; exit 1; }
  measure "lock from find-links --offline" "${lock[@]}" -o "$WORK/$shape-3.toml" --offline
  "$VWHEEL" venv "$WORK/venv-$shape" --python "$PYTHON" >/dev/null
  target=()
  [ "$shape" = graph ] && target=(--target "$WORK/profiles/cuda12.8-sm90.json")
  gets_before=$(grep -c '"GET [^ ]*\.whl ' "$WORK/ngx/access.log" || true)
  measure "sync of that lock" "$VWHEEL" sync -q "$WORK/$shape-1.toml" --cache-dir "$cache" \
    --python "$WORK/venv-$shape/bin/python" "${target[@]}"
  gets=$(($(grep -c '"GET [^ ]*\.whl ' "$WORK/ngx/access.log" || true) - gets_before))
  "$PYTHON" -c "print(f'  a page without hashes or METADATA files costs {$cold - $reference:+.2f} s more on an empty cache (curl + sha256sum of the same wheels: {$base:.2f} s); again: {$heads} HEAD requests; the sync downloaded {$gets} wheels')"
done
