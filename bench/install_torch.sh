#!/usr/bin/env bash
# Torch-sized install benchmark (issue 17), every tool on the same wheel from the same local index
# in one run: a torch-shaped wheel (bench/make_torch_wheel.py: a few hundred deflated .so members
# with long-tailed sizes compressing about 2:1, ~12,000 .py) served by `vwheel index serve`:
#   0. `curl -o` alone (the download's floor)
#   1. `curl -o` then `unzip -q` (sequential: the floor a naive installer starts from)
#   2. `pip install --no-deps --no-cache-dir --no-compile` into a fresh venv (vwheel compiles no
#      bytecode unless asked either)
#   3. `dd` of the installed tree's size into a new file: the page cache's own cost here (see below),
#      the same with a `dd` per core at once (the least time writing the tree takes here),
#      then `vwheel install --no-deps`, empty cache, fresh venv
#   3b. the same with every byte of the download written to disk (VWHEEL_HOLD_MIB=0), as before
#      vwheel held in memory the bytes it unpacks once
#   4. `vwheel install --no-deps`, warm cache (from 3), another fresh venv; at the end of the round,
#      `--force-reinstall` over it and `uninstall`, each beside pip's (which downloads and unpacks
#      again to reinstall)
#   5. the same two with `--keep-archives` (the download kept beside the tree) into another cache,
#      and both caches' size on disk: which layout wins
#   6. with BEFORE=path/to/another/vwheel: that binary's empty-cache install too (an A/B in one run;
#      the last slot of a round, which on the 2-core VM ran the same binary 3-11% faster than the
#      slot of step 3: swap the binaries to tell a change from the slot)
# Each timed command starts after `sync`; wall time and peak RSS from GNU time. Nothing is deleted
# until the end: on an ext4 without a journal (this project's machines), each new inode is found
# by skipping every inode of its group freed in the last 30-60 s, one buffer lookup each, so a
# command timed right after `rm -rf` of another tool's 4,000-file tree paid for that deletion
# (perf: over a third of vwheel's CPU in ext4's recently_deleted()). One run; prints the
# ratios issue 17 asks for (empty cache <= 0.3x curl+unzip and >= 4x faster than pip; warm cache
# >= 20x faster than pip; peak RSS <= 256 MiB).
# Usage: bench/install_torch.sh [VWHEEL_BIN] [WORKDIR]   (SCALE=0.25 by default: 1.0 is the full
#   1.7 GB install; ROUNDS=N repeats every command N times, PAUSE seconds apart (60), and prints
#   medians; PYTHON=/usr/bin/python3; KEEP=1 keeps WORKDIR; PRIME_MIB=3072 starts every command,
#   of every tool, with memory the host has backed: bench/common.sh; HTML=1 serves the index as
#   HTML pages only, which give no file sizes)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VWHEEL=${1:-$ROOT/build/vwheel}
WORK=${2:-$(mktemp -d /var/tmp/vwheel-torch.XXXXXX)}
PYTHON=${PYTHON:-/usr/bin/python3}
SCALE=${SCALE:-0.25}
export XDG_CACHE_HOME=$WORK/xdg-cache PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null
unset PIP_NO_CACHE_DIR PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS
. "$ROOT/bench/common.sh"

echo "== generating the torch-shaped wheel (scale $SCALE) in $WORK"
mkdir -p "$WORK/wheels"
# Named for any platform, except with HTML=1: installers fetch the end first only of wheels built
# for a platform (as torch's are) when the index gives no size.
WHEEL=torch-2.9.0-py3-none-any.whl
if [ -n "${HTML:-}" ]; then
  WHEEL=torch-2.9.0-py3-none-$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))').whl
fi
"$PYTHON" "$ROOT/bench/make_torch_wheel.py" "$WORK/wheels/$WHEEL" --scale "$SCALE"
"$VWHEEL" index build "$WORK/wheels" -o "$WORK/site" --quiet
if [ -n "${HTML:-}" ]; then
  # Pages without sizes, as PyTorch's index serves them: installers learn a wheel's size only
  # from the server (bench/README.md, "An index without sizes").
  find "$WORK/site/simple" -name index.json -delete
fi
start_server "$WORK/serve.out" "$VWHEEL" index serve "$WORK/site" --port 0
PAGE="${URL%/}/torch/"
HREF=$(curl -sf "$PAGE" | sed -n "s/.*href=\"\([^\"#]*$WHEEL\)[#\"].*/\1/p" | head -1)
WHEEL_URL=$("$PYTHON" -c 'import sys, urllib.parse; print(urllib.parse.urljoin(sys.argv[1], sys.argv[2]))' "$PAGE" "$HREF")
echo "serving $URL ($WHEEL_URL)"

installed() { [ -f "$(echo "$1"/lib/python3*/site-packages/torch-2.9.0.dist-info/RECORD)" ] || { echo "$1: torch not installed" >&2; exit 1; }; }

: >"$WORK/results"
: >"$WORK/disk"
# One round: every tool once, into the round's own directory.
one_round() {
  R=$WORK/round$1
  mkdir -p "$R"
  measure curl curl -sf -o "$R/dl0.whl" "$WHEEL_URL"
  measure curl-unzip bash -c "curl -sf -o '$R/dl.whl' '$WHEEL_URL' && unzip -q -o '$R/dl.whl' -d '$R/unzipped'"
  "$PYTHON" -m venv "$R/pip"
  measure pip "$R/pip/bin/python" -m pip install -q --no-deps --no-cache-dir --no-compile --index-url "$URL" torch
  installed "$R/pip"
  # What writing the installed tree's bytes into the page cache alone costs on this machine, in this
  # run: on a VM whose memory the host backs lazily, new page-cache pages cost far more than the copy
  # (Firecracker here: about 2 s a GB against 0.2 s for pages freed a moment ago), and every installer
  # must write the tree. Zeros from /dev/zero, one core, no fsync.
  tree_mb=$(du -sm "$R/unzipped" | cut -f1)
  measure page-cache-write dd if=/dev/zero of="$R/page-cache-probe" bs=1M count="$tree_mb" status=none
  # The same bytes written by one writer per core at once, as an installer with a worker per core
  # writes them: what writing the tree costs at best here, before any inflating or hashing.
  measure page-cache-write-parallel bash -c "for i in \$(seq $(nproc)); do
      dd if=/dev/zero of='$R/page-cache-probe'.\$i bs=1M count=$((tree_mb / $(nproc))) status=none & done; wait"
  "$VWHEEL" venv "$R/vw1" --python "$PYTHON" >/dev/null
  measure vwheel-empty-cache "$VWHEEL" install -q --no-deps --cache-dir "$R/vwcache" --index-url "$URL" \
    --python "$R/vw1/bin/python" torch
  installed "$R/vw1"
  # The same with VWHEEL_HOLD_MIB=0: every byte of the download written to its part file, as before
  # the unpacking took the bytes it reads once from memory (core/growing_file.hpp).
  "$VWHEEL" venv "$R/vw6" --python "$PYTHON" >/dev/null
  measure vwheel-empty-all-written env VWHEEL_HOLD_MIB=0 "$VWHEEL" install -q --no-deps --cache-dir "$R/vwcache-written" \
    --index-url "$URL" --python "$R/vw6/bin/python" torch
  installed "$R/vw6"
  "$VWHEEL" venv "$R/vw2" --python "$PYTHON" >/dev/null
  measure vwheel-warm-cache "$VWHEEL" install -q --no-deps --cache-dir "$R/vwcache" --index-url "$URL" \
    --python "$R/vw2/bin/python" torch
  installed "$R/vw2"
  # The other cache layout (issue 17): the download kept beside the unpacked tree.
  "$VWHEEL" venv "$R/vw4" --python "$PYTHON" >/dev/null
  measure vwheel-keep-archives "$VWHEEL" install -q --no-deps --keep-archives --cache-dir "$R/vwcache-keep" \
    --index-url "$URL" --python "$R/vw4/bin/python" torch
  installed "$R/vw4"
  "$VWHEEL" venv "$R/vw5" --python "$PYTHON" >/dev/null
  measure vwheel-keep-archives-warm "$VWHEEL" install -q --no-deps --keep-archives --cache-dir "$R/vwcache-keep" \
    --index-url "$URL" --python "$R/vw5/bin/python" torch
  installed "$R/vw5"
  echo "$(du -sk "$R/vwcache" | cut -f1) $(du -sk "$R/vwcache-keep" | cut -f1)" >>"$WORK/disk"
  if [ -n "${BEFORE:-}" ]; then
    # Another vwheel binary (e.g. a build of the previous commit) on the same wheel in the same run.
    "$VWHEEL" venv "$R/vw3" --python "$PYTHON" >/dev/null
    measure before-empty-cache "$BEFORE" install -q --no-deps --cache-dir "$R/vwcache-before" --index-url "$URL" \
      --python "$R/vw3/bin/python" torch
    installed "$R/vw3"
  fi
  # Last, since they delete: the same version again over each tool's own install (vwheel from its
  # warm cache, pip downloading and unpacking again as it does), then uninstalling it.
  measure pip-reinstall "$R/pip/bin/python" -m pip install -q --no-deps --no-cache-dir --no-compile --force-reinstall \
    --index-url "$URL" torch
  installed "$R/pip"
  measure vwheel-reinstall "$VWHEEL" install -q --no-deps --force-reinstall --cache-dir "$R/vwcache" --index-url "$URL" \
    --python "$R/vw2/bin/python" torch
  installed "$R/vw2"
  measure pip-uninstall "$R/pip/bin/python" -m pip uninstall -q -y torch
  measure vwheel-uninstall "$VWHEEL" uninstall torch --python "$R/vw2/bin/python"
}
ROUNDS=${ROUNDS:-1}
for round in $(seq "$ROUNDS"); do
  if [ "$round" -gt 1 ]; then
    # The last round's files go, then a quiet minute: ext4's recently_deleted() (above) and this
    # VM's free-page reporting (README) would otherwise make the next round's numbers depend on it.
    rm -rf "$WORK/round$((round - 1))"
    sleep "${PAUSE:-60}"
  fi
  one_round "$round"
done

"$PYTHON" - "$WORK/results" "$(stat -c %s "$WORK/wheels/$WHEEL")" "$WORK/disk" "$tree_mb" <<'PY'
import os, statistics, sys
# rounds[k][name] = (seconds, peak RSS KiB, CPU seconds); each name appears once a round.
rounds = []
for line in open(sys.argv[1]):
    name, t, kib, u, k = line.split()
    if not rounds or name in rounds[-1]:
        rounds.append({})
    rounds[-1][name] = (float(t), int(kib), float(u) + float(k))
med = lambda values: statistics.median(values)
n = len(rounds)
prime = os.environ.get("PRIME_MIB")
print(f"== {n} round{'s' if n > 1 else ''}, wheel {int(sys.argv[2]) / 1e6:.0f} MB" + (" (medians; each round's values after)" if n > 1 else "")
      + (f"; every command after {prime} MiB written and deleted (PRIME_MIB)" if prime else ""))
print(f"{'':26} {'seconds':>8} {'CPU seconds':>12} {'peak RSS MiB':>13}")
for name in rounds[0]:
    ts = [r[name][0] for r in rounds]
    cpus = [r[name][2] for r in rounds]
    each = "   " + " ".join(f"{t:.2f}" for t in ts) if n > 1 else ""
    print(f"{name:26} {med(ts):8.2f} {med(cpus):12.2f} {max(r[name][1] for r in rounds) / 1024:13.0f}{each}")
# Ratios within a round (the same machine state), then their median.
def ratio(f):
    values = [f(r) for r in rounds]
    return med(values), ("   (" + ", ".join(f"{v:.2f}" for v in values) + ")" if n > 1 else "")
v, each = ratio(lambda r: r["vwheel-empty-cache"][0] / r["curl-unzip"][0])
print(f"vwheel empty cache / (curl + unzip): {v:.2f}x (target <= 0.3x){each}")
v, each = ratio(lambda r: r["pip"][0] / r["vwheel-empty-cache"][0])
print(f"pip / vwheel empty cache:            {v:.1f}x (target >= 4x){each}")
v, each = ratio(lambda r: r["pip"][0] / max(r["vwheel-warm-cache"][0], 0.001))
print(f"pip / vwheel warm cache:             {v:.1f}x (target >= 20x){each}")
v, each = ratio(lambda r: r["pip-reinstall"][0] / max(r["vwheel-reinstall"][0], 0.001))
print(f"pip / vwheel --force-reinstall:      {v:.1f}x{each}")
v, each = ratio(lambda r: r["pip-uninstall"][0] / max(r["vwheel-uninstall"][0], 0.001))
print(f"pip / vwheel uninstall:              {v:.1f}x{each}")
v, each = ratio(lambda r: r["vwheel-empty-all-written"][0] / r["vwheel-empty-cache"][0])
print(f"all written / held in memory:        {v:.2f}x{each}")
if "before-empty-cache" in rounds[0]:
    v, each = ratio(lambda r: r["before-empty-cache"][0] / r["vwheel-empty-cache"][0])
    print(f"BEFORE / vwheel empty cache:         {v:.2f}x{each}")
tree_kib, keep_kib = (int(v) for v in open(sys.argv[3]).readline().split())
cold = med([r["vwheel-empty-cache"][0] for r in rounds])
print(f"cache on disk: tree only {tree_kib / 1024:.0f} MiB, with the archive {keep_kib / 1024:.0f} MiB; "
      f"empty cache {cold:.2f} s against {med([r['vwheel-keep-archives'][0] for r in rounds]):.2f} s, "
      f"warm {med([r['vwheel-warm-cache'][0] for r in rounds]):.2f} s against "
      f"{med([r['vwheel-keep-archives-warm'][0] for r in rounds]):.2f} s")
probe, tree_mb = med([r["page-cache-write"][0] for r in rounds]), int(sys.argv[4])
parallel = med([r["page-cache-write-parallel"][0] for r in rounds])
cores = os.cpu_count() or 1
base = med([r["curl-unzip"][0] for r in rounds])
print(f"page cache here: writing the tree's {tree_mb} MB takes {probe:.2f} s on one core ({probe / tree_mb * 1024:.2f} s/GB), "
      f"{parallel:.2f} s with a writer on each of {cores} cores: {parallel / (0.3 * base):.0%} of the {0.3 * base:.2f} s "
      f"the 0.3x target allows, before anything is inflated or hashed")
rss = max(max(r["vwheel-empty-cache"][1], r["vwheel-warm-cache"][1]) for r in rounds)
print(f"vwheel peak RSS: {rss / 1024:.0f} MiB (target <= 256)")
PY
