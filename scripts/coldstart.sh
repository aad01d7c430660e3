#!/usr/bin/env bash
# Cold start of docs/performance.md ("Images that start compiled"): the
# time from starting `mcp-wasm serve` (stdio) to the answer of its first
# request (initialize, then resources/list, timed to the list's answer),
# the median of RUNS (default 7) starts, for the built-in files provider
# and the conformance Go guest, each
#   without a cache (--cache-dir "": every start compiles),
#   from a warm writable cache (a previous start filled it), and
#   from a cache baked by `mcp-wasm compile` and served read-only.
# As root it serves the baked cache from a read-only bind mount, so that
# --cache-readonly is detected, not given; otherwise with chmod -w and the
# flag. Either way it checks that the directory is unchanged afterwards
# (every file's name, mode, size, time and SHA-256) and that the server
# warned of no module missing from it.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-7}
go build -trimpath -o build/mcp-wasm ./cmd/mcp-wasm
make -s build/guests/conformance.wasm >/dev/null
BIN=$PWD/build/mcp-wasm
work=$(mktemp -d)
mounted=""
cleanup() { [ -n "$mounted" ] && umount "$mounted" 2>/dev/null; chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/data"
for i in $(seq 1 50); do echo "file $i" >"$work/data/f$i.txt"; done

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"coldstart","version":"0"}}}'
INITED='{"jsonrpc":"2.0","method":"notifications/initialized"}'
LIST='{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{}}'

# once ARGS...: one start, prints milliseconds to the list's answer.
once() {
  local start end line
  start=$(date +%s%N)
  coproc SRV { exec "$BIN" serve "$@" 2>>"$work/serve.log"; }
  printf '%s\n%s\n%s\n' "$INIT" "$INITED" "$LIST" >&"${SRV[1]}"
  while IFS= read -r line <&"${SRV[0]}"; do
    case $line in *'"id":2'*) break ;; esac
  done
  end=$(date +%s%N)
  case $line in *'"result"'*) ;; *) echo "coldstart: no list answer: $line" >&2; exit 1 ;; esac
  kill "$SRV_PID" 2>/dev/null || true
  wait "$SRV_PID" 2>/dev/null || true
  echo $(((end - start) / 1000000))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# fingerprint DIR: every file's name, mode, size, time and digest.
fingerprint() { (cd "$1" && find . -printf '%p %m %s %T@\n' | sort && find . -type f -exec sha256sum {} + | sort); }

echo "| Provider | no cache (ms) | warm writable cache (ms) | baked, read-only (ms) |"
echo "|---|---|---|---|"
for p in default go; do
  case $p in
    default) mod=() label="default (files)" ;;
    go) mod=(--module "$PWD/build/guests/conformance.wasm") label="conformance (Go guest)" ;;
  esac
  case $p in default) cmod=() ;; go) cmod=("$PWD/build/guests/conformance.wasm") ;;
  esac
  args=(--allow-dir "$work/data")
  [ "$p" = go ] && args=()
  baked=$work/baked-$p
  "$BIN" compile --cache-dir "$baked" --log-level warn "${args[@]}" "${cmod[@]}" 2>>"$work/serve.log" >/dev/null
  "$BIN" compile --cache-dir "$work/warm-$p" --log-level warn "${args[@]}" "${cmod[@]}" 2>>"$work/serve.log" >/dev/null
  before=$(fingerprint "$baked")
  ro=(--cache-readonly)
  if [ "$(id -u)" = 0 ] && mkdir "$work/ro-$p" && mount --bind "$baked" "$work/ro-$p" 2>/dev/null \
      && mount -o remount,bind,ro "$work/ro-$p" 2>/dev/null; then
    mounted=$work/ro-$p served=$work/ro-$p ro=()
  else
    chmod -R a-w "$baked"; served=$baked
  fi
  : >"$work/serve.log"
  cold=$(for _ in $(seq 1 "$RUNS"); do once --cache-dir "" "${args[@]}" "${mod[@]}"; done | median)
  warm=$(for _ in $(seq 1 "$RUNS"); do once --cache-dir "$work/warm-$p" "${args[@]}" "${mod[@]}"; done | median)
  : >"$work/serve.log"
  baked_ms=$(for _ in $(seq 1 "$RUNS"); do once --cache-dir "$served" "${ro[@]}" "${args[@]}" "${mod[@]}"; done | median)
  grep -q 'read-only cache dir' "$work/serve.log" || { echo "coldstart: the baked cache was not used read-only:"; cat "$work/serve.log"; exit 1; }
  if grep -q 'not in the read-only cache dir\|skipped=' "$work/serve.log"; then echo "coldstart: a module was missing from the baked cache:"; cat "$work/serve.log"; exit 1; fi
  [ "$(fingerprint "$baked")" = "$before" ] || { echo "coldstart: the read-only cache dir was written"; exit 1; }
  [ -n "$mounted" ] && { umount "$mounted"; mounted=""; }
  echo "| $label | $cold | $warm | $baked_ms |"
done
echo
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), read-only by ${ro[*]:-a read-only bind mount}"
