#!/usr/bin/env bash
# `vwheel index serve`: project-page requests per second on loopback with wrk (2 threads,
# 32 connections, 10 s), HTML and PEP 691 JSON, against the target of 5,000 req/s. The served
# folder has 200 projects; the measured one, `bench-pkg`, has 20 versions x (3 plain + 2 variant)
# wheels, so its pages carry 120 links (about 40 KB of HTML, 53 KB of JSON).
# Usage: bench/index_serve.sh [SECONDS]   (VWHEEL_BIN=path/to/vwheel to skip building build-bench;
#        THREADS=N: server threads, default the CLI's; CONNECTIONS=N: wrk connections, default 32)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${CONNECTIONS:-32}
target=5000
if [ -n "${VWHEEL_BIN:-}" ]; then
  vw=$VWHEEL_BIN
else
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DVWHEEL_BUILD_BENCH=ON -DVWHEEL_BUILD_TESTS=OFF >/dev/null
  cmake --build build-bench -j"$(nproc 2>/dev/null || echo 2)" --target vwheel >/dev/null
  vw=build-bench/vwheel
fi
command -v wrk >/dev/null || { echo "wrk is needed (apt-get install wrk)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vwheel-serve-bench.XXXXXX")
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
wheels=$work/wheels

python3 - "$wheels" <<'PY'
import base64, hashlib, json, os, sys, zipfile
out = sys.argv[1]
os.makedirs(out)
schema = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
def rec(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
def wheel(name, version, tag, label):
    di = f"{name}-{version}.dist-info"
    members = [(f"{name}/__init__.py", b"X = 1\n"),
               (f"{di}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()),
               (f"{di}/WHEEL", f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: {tag}-none-any\n".encode())]
    if label:
        doc = {"$schema": schema, "default-priorities": {"namespace": ["x86_64"]},
               "variants": {label: {"x86_64": {"level": [label]}}}}
        members.append((f"{di}/variant.json", json.dumps(doc, indent=4).encode()))
    fn = f"{name}-{version}-{tag}-none-any" + (f"-{label}" if label else "") + ".whl"
    with zipfile.ZipFile(os.path.join(out, fn), "w") as zf:
        lines = []
        for p, d in members:
            zf.writestr(p, d)
            lines.append(f"{p},{rec(d)},{len(d)}\n")
        lines.append(f"{di}/RECORD,,\n")
        zf.writestr(f"{di}/RECORD", "".join(lines))
kinds = (("py3", None), ("cp311", None), ("cp312", None), ("py3", "v3"), ("py3", "v4"))
for minor in range(20):
    for tag, label in kinds:
        wheel("bench_pkg", f"1.{minor}", tag, label)
for p in range(199):
    wheel(f"other{p}", "1.0", "py3", None)
PY

log=$work/serve.out
"$vw" index serve --wheels "$wheels" --port 0 ${THREADS:+--threads "$THREADS"} >"$log" 2>"$work/serve.err" &
server_pid=$!
for _ in $(seq 1 600); do
  [ -s "$log" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
  sleep 0.1
done
line=$(head -n1 "$log")
port=${line##*:}
port=${port%%/*}
url=http://127.0.0.1:$port/simple/bench-pkg/
echo "$line"
html_bytes=$(curl -sS "$url" | wc -c)
json_bytes=$(curl -sS -H 'Accept: application/vnd.pypi.simple.v1+json' "$url" | wc -c)

measure() {  # label, extra wrk arguments...
  local label=$1
  shift
  local out rps
  out=$(wrk -t2 -c"$connections" -d"${seconds}s" "$@" "$url")
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  local errors
  errors=$(awk '/Socket errors|Non-2xx/ {print}' <<<"$out")
  printf '%-5s %10.0f req/s  (%.2fx the %d req/s target)%s\n' "$label" "$rps" "$(awk -v r="$rps" -v t="$target" 'BEGIN {print r / t}')" "$target" \
    "${errors:+  [$errors]}"
}

echo "== vwheel index serve: GET /simple/bench-pkg/, wrk -t2 -c$connections -d${seconds}s (HTML $html_bytes B, JSON $json_bytes B)"
measure HTML
measure JSON -H 'Accept: application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01'
