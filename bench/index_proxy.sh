#!/usr/bin/env bash
# `vwheel index serve --upstream`, the caching proxy a cluster's nodes share, against nginx serving
# the same wheel directly (sendfile), with curl as the client, in one run:
#   direct          curl from nginx (the upstream): the baseline
#   proxy, cold     curl through the proxy on its first request: the proxy fetches the file from the
#                   upstream, checks its sha256 and keeps it while the client waits
#   proxy, warm     the same request again: served from the proxy's cache
#   8 nodes         8 curls at once, from nginx and then from the warm proxy
# A GB-sized wheel (bench/make_big_wheel.py, random stored members so nothing compresses), on
# loopback. Prints seconds, MB/s and the ratios against the baseline.
# Usage: bench/index_proxy.sh [MEGABYTES]   (default 1024; VWHEEL=path/to/vwheel, default build/vwheel)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MB=${1:-1024}
VWHEEL=${VWHEEL:-$ROOT/build/vwheel}
PYTHON=${PYTHON:-/usr/bin/python3}
NGINX=${NGINX:-/usr/sbin/nginx}
[ -x "$NGINX" ] || { echo "bench/index_proxy.sh needs nginx (apt-get install nginx-light)" >&2; exit 1; }
[ -x "$VWHEEL" ] || { echo "no vwheel at $VWHEEL (build it, or set VWHEEL)" >&2; exit 1; }
WORK=$(mktemp -d /var/tmp/vwheel-proxy-bench.XXXXXX)
proxy_pid=
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  [ -f "$WORK/ngx/nginx.pid" ] && kill "$(cat "$WORK/ngx/nginx.pid")" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== a ${MB} MiB wheel, indexed, served by nginx"
mkdir -p "$WORK/wheels" "$WORK/ngx"
"$PYTHON" "$ROOT/bench/make_big_wheel.py" "$WORK/wheels/bigpkg-1.0-py3-none-any.whl" --members 2000 --megabytes "$MB" >/dev/null
"$VWHEEL" index build "$WORK/wheels" -o "$WORK/site" -q
port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
user=""
[ "$(id -u)" = 0 ] && user="user root;"
cat >"$WORK/ngx/nginx.conf" <<EOF
$user
worker_processes 2;
error_log $WORK/ngx/error.log;
pid $WORK/ngx/nginx.pid;
events { worker_connections 256; }
http {
    log_format agent '\$request "\$http_user_agent"';
    access_log $WORK/ngx/access.log agent;
    client_body_temp_path $WORK/ngx/client_body;
    proxy_temp_path $WORK/ngx/proxy;
    fastcgi_temp_path $WORK/ngx/fastcgi;
    uwsgi_temp_path $WORK/ngx/uwsgi;
    scgi_temp_path $WORK/ngx/scgi;
    sendfile on;
    types { application/json json; text/html html; }
    server { listen 127.0.0.1:$port; root $WORK/site; index index.html; }
}
EOF
"$NGINX" -p "$WORK/ngx" -c "$WORK/ngx/nginx.conf"
upstream="http://127.0.0.1:$port/simple/"
for _ in $(seq 100); do curl -sf "$upstream" >/dev/null && break; sleep 0.1; done

"$VWHEEL" index serve --upstream "$upstream" --cache-dir "$WORK/proxy-cache" --port 0 >"$WORK/proxy.out" 2>"$WORK/proxy.log" &
proxy_pid=$!
for _ in $(seq 100); do grep -q '^Serving' "$WORK/proxy.out" 2>/dev/null && break; sleep 0.1; done
proxy=$(sed -n 's/^Serving .* on \(http:\/\/[^ ]*\)\/simple\/$/\1/p' "$WORK/proxy.out")
[ -n "$proxy" ] || { echo "the proxy did not start: $(cat "$WORK/proxy.log")" >&2; exit 1; }

# The wheel's URL on each side, from the HTML pages.
file_url() {
  curl -sf "$1" | "$PYTHON" -c 'import re, sys, urllib.parse
m = re.search(r"href=\"([^\"]*bigpkg-1\.0-py3-none-any\.whl)[#\"]", sys.stdin.read())
print(urllib.parse.urljoin(sys.argv[1], m.group(1)))' "$1"
}
direct=$(file_url "${upstream}bigpkg/")
through=$(file_url "$proxy/simple/bigpkg/")
bytes=$(stat -c %s "$WORK/wheels/bigpkg-1.0-py3-none-any.whl")

# seconds CMD...: wall seconds of a command
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
fetch() { curl -sf -o /dev/null "$1"; }
fetch8() {
  local url=$1 pids=() i
  for i in 1 2 3 4 5 6 7 8; do curl -sf -o /dev/null "$url" & pids+=($!); done
  for i in "${pids[@]}"; do wait "$i"; done
}

fetch "$direct"  # the page cache holds the file for both sides alike
t_direct=$(seconds fetch "$direct")
t_cold=$(seconds fetch "$through")
t_warm=$(seconds fetch "$through")
t_direct8=$(seconds fetch8 "$direct")
t_warm8=$(seconds fetch8 "$through")
# What the proxy asked nginx for the wheel (curl's own requests left out).
upstream_gets=$(grep 'bigpkg-1.0-py3-none-any.whl ' "$WORK/ngx/access.log" | grep -vc '"curl/' || true)

row() { printf '%-28s %7.2f s  %8.0f MB/s  %6.2fx the direct time\n' "$1" "$2" "$(echo "$3 / $2 / 1000000" | bc -l)" "$(echo "$2 / $4" | bc -l)"; }
echo "== one ${MB} MiB wheel ($bytes bytes) on loopback"
row "direct (nginx, curl)" "$t_direct" "$bytes" "$t_direct"
row "proxy, cold (fetch+check)" "$t_cold" "$bytes" "$t_direct"
row "proxy, warm (from cache)" "$t_warm" "$bytes" "$t_direct"
row "8 at once, direct" "$t_direct8" "$((bytes * 8))" "$t_direct8"
row "8 at once, proxy warm" "$t_warm8" "$((bytes * 8))" "$t_direct8"
echo "the proxy fetched the wheel from nginx $upstream_gets time(s) for 10 requests; its cache holds $(find "$WORK/proxy-cache" -name '*.whl' | wc -l) copy"
