#!/usr/bin/env bash
# Container check of docs/performance.md ("Under a container's memory
# limit"): mcp-wasm serve --http runs inside a cgroup limited to LIMIT
# (default 256M, no swap) while CLIENTS (default 64) clients outside it read
# for DURATION (default 20s). Providers: the built-in files provider and
# the conformance Go guest (PROVIDERS="default go" by default), each with a
# fresh cache directory, so the compile worker runs inside the limit too.
# Passes only if every read succeeds, the server is alive at the end and
# the kernel reports no OOM kill in the group. Prints the server's startup
# line of gctune (the limit it chose) and the group's peak usage.
#
# Needs root and a writable cgroup file system: cgroup v2 with the memory
# controller delegated to the process's group's parent, or cgroup v1's
# memory hierarchy (/sys/fs/cgroup/memory). The group is made under the
# script's own group, so its limit nests inside whatever binds that one,
# and is removed on exit. Exits 77 (skipped) where none can be made.
set -euo pipefail
cd "$(dirname "$0")/.."

LIMIT=${LIMIT:-256M}
CLIENTS=${CLIENTS:-64}
DURATION=${DURATION:-20s}
PROVIDERS=${PROVIDERS:-default go}
OUT=build/cgroup-load
mkdir -p "$OUT"

skip() { echo "cgroup-load: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to make a cgroup"

# The group: v2 if its memory controller is usable, else v1's memory tree.
CG="" V=""
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
  own=$(sed -n 's/^0:://p' /proc/self/cgroup)
  parent=/sys/fs/cgroup${own%/*}
  # v2 forbids processes in a group whose controllers are delegated, so the
  # new group is a sibling of ours, with the memory controller enabled in
  # our parent (a systemd scope or a container's namespace root allow it).
  if grep -qw memory "$parent/cgroup.subtree_control" 2>/dev/null || echo +memory >"$parent/cgroup.subtree_control" 2>/dev/null; then
    CG=$parent/mcp-wasm-load-$$ V=2
  fi
fi
if [ -z "$CG" ] && [ -d /sys/fs/cgroup/memory ]; then
  own=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
  CG=/sys/fs/cgroup/memory${own%/}/mcp-wasm-load-$$ V=1
fi
[ -n "$CG" ] || skip "no writable cgroup memory controller"
mkdir "$CG" 2>/dev/null || skip "cannot make $CG"

bytes=$(numfmt --from=iec "$LIMIT")
if [ "$V" = 2 ]; then
  echo "$bytes" >"$CG/memory.max"
  echo 0 >"$CG/memory.swap.max" 2>/dev/null || true
else
  echo "$bytes" >"$CG/memory.limit_in_bytes"
  echo "$bytes" >"$CG/memory.memsw.limit_in_bytes" 2>/dev/null || true
fi

go build -trimpath -o build/mcp-wasm ./cmd/mcp-wasm
go build -trimpath -o build/mcp-wasm-load ./cmd/mcp-wasm-load
make -s build/guests/conformance.wasm >/dev/null
LOAD=build/mcp-wasm-load

PID=""
cleanup() {
  [ -n "$PID" ] && { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
  # the group can only go once it is empty
  for _ in $(seq 1 50); do rmdir "$CG" 2>/dev/null && break; sleep 0.1; done
}
trap cleanup EXIT

ooms() {
  if [ "$V" = 2 ]; then sed -n 's/^oom_kill //p' "$CG/memory.events"
  else sed -n 's/^oom_kill //p' "$CG/memory.oom_control"; fi
}
peak() {
  if [ "$V" = 2 ]; then cat "$CG/memory.peak" 2>/dev/null || echo 0
  else cat "$CG/memory.max_usage_in_bytes"; fi
}

# A tree for the files provider: 200 files of 4 KiB.
data=$(mktemp -d)
for i in $(seq 1 200); do head -c 4096 /dev/urandom | base64 >"$data/f$i.txt"; done
uris=()
for i in 1 2 3 4; do uris+=(--uri "file://$data/f$i.txt"); done

fail=0
for p in $PROVIDERS; do
  cache=$(mktemp -d)
  case $p in
    default) args=(--allow-dir "$data") load=("${uris[@]}") ;;
    go) args=(--module build/guests/conformance.wasm) load=() ;;
    *) echo "cgroup-load: unknown provider $p"; exit 2 ;;
  esac
  [ "$V" = 1 ] && echo 0 >"$CG/memory.max_usage_in_bytes"
  before=$(ooms)
  # The server, and the compile workers it starts, run inside the group;
  # the clients stand for the network and stay outside.
  sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG" \
    build/mcp-wasm serve --http 127.0.0.1:0 "${args[@]}" --cache-dir "$cache" \
    --rate-limit 0 --max-sessions-per-client 0 --audit-log off --log-level info \
    2>"$OUT/$p.log" &
  PID=$!
  url=""
  for _ in $(seq 1 600); do
    url=$(sed -n 's/.*serving MCP on \(http:[^ ]*\).*/\1/p' "$OUT/$p.log" | head -1)
    [ -n "$url" ] && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.2
  done
  [ -n "$url" ] || { echo "cgroup-load: $p server did not start:"; cat "$OUT/$p.log"; exit 1; }
  grep -m1 'garbage collector' "$OUT/$p.log" || true
  status=ok
  "$LOAD" run --url "$url" --clients "$CLIENTS" --duration "$DURATION" --pid "$PID" \
    --label "$p in $LIMIT" --json "$OUT/$p.json" "${load[@]}" || status="load failed"
  kill -0 "$PID" 2>/dev/null || status="server died"
  after=$(ooms)
  [ "$after" = "$before" ] || status="$status, $((after - before)) OOM kill(s)"
  printf '%s in %s: %s, group peak %.1f MiB\n' "$p" "$LIMIT" "$status" "$(echo "$(peak) / 1048576" | bc -l)"
  [ "$status" = ok ] || fail=1
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  rm -rf "$cache"
done
rm -rf "$data"
exit $fail
