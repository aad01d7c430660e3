#!/usr/bin/env bash
# Goroutine stack copies during the default provider's 1 KiB read benchmark
# (docs/performance.md, "Stack copies"): a perf uprobe on runtime.copystack
# in both servers, reporting per server process how often a stack grew, to
# what size, and how much of it was in use. A read that outgrows its
# goroutine's stack pays for a copy that unwinds every frame on it.
# Needs root (uprobes) and perf; Linux amd64 (the probe reads the g's
# stack bounds from AX).
set -euo pipefail
cd "$(dirname "$0")/.."

go build -trimpath -o build/mcp-wasm ./cmd/mcp-wasm
go build -trimpath -o build/mcp-wasm-load ./cmd/mcp-wasm-load
# copystack(gp *g, newsize uintptr): g.stack.hi at +8, g.sched.sp at +56.
args='hi=+8(%ax):u64 sp=+56(%ax):u64 newsize=%bx:u64'
perf probe -q -d 'mcpwasm_cs:*' 2>/dev/null || true
perf probe -q -x "$PWD/build/mcp-wasm" --add "mcpwasm_cs:wasm=runtime.copystack $args"
perf probe -q -x "$PWD/build/mcp-wasm-load" --add "mcpwasm_cs:native=runtime.copystack $args"
trap 'perf probe -q -d "mcpwasm_cs:*"' EXIT
data=$(mktemp)
perf record -q -e 'mcpwasm_cs:*' -a -o "$data" -- \
	build/mcp-wasm-load files --bin build/mcp-wasm --rounds "${ROUNDS:-1}" --only read1k
echo
echo "copies  process(pid)  new size  in use (KiB, at the copy)"
perf script -i "$data" -F comm,pid,trace 2>/dev/null |
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	       printf "%s(%s) %d %.1f\n", $1, $2, v["newsize"], int((v["hi"] - v["sp"]) / 512) / 2 }' |
	sort | uniq -c | sort -k2,2 -k1,1nr | awk '$1 >= 20'
rm -f "$data"
