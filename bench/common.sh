# Sourced by the bench scripts that start a server: the work directory WORK (made here) is removed
# on exit unless KEEP=1, with the server whose pid is in `server`; `now` prints the time;
# `start_server OUT CMD...` runs CMD in the background, writing to OUT, and sets URL from its
# `Serving ... URL` line (bench/slow_links_server.py's and `vwheel index serve`'s); `measure NAME
# CMD...` times CMD (GNU time) into $WORK/results.
mkdir -p "$WORK"
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
now() { date +%s.%N; }

start_server() {
  local out=$1
  shift
  "$@" >"$out" 2>"$out.err" &
  server=$!
  for _ in $(seq 100); do grep -q '^Serving' "$out" 2>/dev/null && break; sleep 0.1; done
  URL=$(sed -n 's/^Serving .*\(http:[^ ]*\)$/\1/p' "$out")
  [ -n "$URL" ] || { echo "the server did not start: $(cat "$out.err")" >&2; exit 1; }
}

# measure NAME CMD...: runs CMD after sync; appends "NAME seconds peak-RSS-KiB user-CPU system-CPU"
# to $WORK/results (and prints it); a failure ends the script with its last lines.
# PRIME_MIB=N: before each command, untimed, writes N MiB of zeros to a file in $WORK and deletes
# it, so that every tool starts with that much free memory the host has just backed. On a VM whose
# balloon reports free memory to the host (bench/README.md, "The page cache's cost on this VM"),
# that takes the host's cost of backing new pages out of the first N MiB a tool touches, as on a
# machine without such a balloon; a tool that runs for longer than the host takes to reclaim them
# still pays for the rest.
measure() {
  local name=$1
  shift
  sync
  if [ -n "${PRIME_MIB:-}" ]; then
    dd if=/dev/zero of="$WORK/prime" bs=1M count="$PRIME_MIB" status=none
    rm -f "$WORK/prime"
  fi
  /usr/bin/time -f "%e %M %U %S" -o "$WORK/time.out" "$@" >/dev/null 2>"$WORK/cmd.err" || {
    echo "$name failed: $(tail -3 "$WORK/cmd.err")" >&2
    exit 1
  }
  echo "$name $(cat "$WORK/time.out")" | tee -a "$WORK/results"
}
