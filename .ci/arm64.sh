#!/usr/bin/env bash
# arm64 under emulation: builds the arm64 test binaries of runtime, server
# and cmd/mcp-wasm (CGO_ENABLED=0, so no arm64 libc is needed) and runs a
# selected set under Debian's qemu-user, with wazero's arm64 compiler doing
# the real work: a real C guest read, the hostile fixtures (the loop
# deadline and every other refusal), a grant escape by symlink and "..",
# the memory allocator (qemu 7.2 has no openat2, so the grants take the
# os.Root path, not the arm64 fstatat one), preemption while the
# collector runs, the compile worker and the baked cache, the server's
# golden and stdio tests, and the real mcp-wasm binary (built for arm64)
# serving the default provider to a go-sdk client.
#
# The compile worker is the test binary or mcp-wasm starting itself; an
# emulated process starts another arm64 process through binfmt_misc, so
# this registers qemu-aarch64 there (as root) if it is not yet. About 4-5
# minutes on 2 cores. Called by .ci/run; runs alone too.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v qemu-aarch64 >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  cat /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register
fi

out=$PWD/build/arm64
mkdir -p "$out"
for pkg in runtime runtime/internal/memalloc server cmd/mcp-wasm; do
  CGO_ENABLED=0 GOARCH=arm64 go test -c -o "$out/$(basename "$pkg").test" "./$pkg"
done
file "$out/runtime.test" | grep -q 'ARM aarch64' || { echo "arm64: not an arm64 binary"; exit 1; }

# run PKG REGEX: the package's arm64 tests matching REGEX, in its directory,
# under qemu-aarch64; fails unless each name in REGEX passed at least once.
run() {
  local pkg=$1 re=$2 log="$out/$(basename "$1").log"
  echo "arm64: $pkg: $re"
  if ! (cd "$pkg" && qemu-aarch64 "$out/$(basename "$pkg").test" -test.run "$re" -test.count=1 -test.v) >"$log" 2>&1; then
    grep -E '^(--- FAIL|FAIL|panic)' "$log" | head -20; tail -30 "$log"; exit 1
  fi
  for name in $(echo "$re" | tr -d '^$()' | tr '|' ' '); do
    grep -q "^--- PASS: $name " "$log" || { echo "arm64: $name did not pass (skipped?):"; grep -A3 "$name" "$log" | head; exit 1; }
  done
  echo "arm64: $(grep -c '^\s*--- PASS' "$log") passed, $(grep -c '^\s*--- SKIP' "$log") skipped"
}

run runtime '^(TestCGuestReadText|TestHostile|TestDirGrantNoEscape|TestInstanceMemoryUnmapped|TestGCWhileGuestSpins|TestCompileWorkerOnceThenCache|TestBakedCacheReadOnly)$'
# The allocator's own tests moved with it into runtime/internal/memalloc.
run runtime/internal/memalloc '^(TestMappedMemoryGrowsInPlace)$'
run server '^(TestServer_golden|TestServeStdio_erasOnOneConnection|TestDecodeFrame)$'
# binary() builds mcp-wasm with the go command: GOARCH makes it arm64 too.
GOARCH=arm64 CGO_ENABLED=0 run cmd/mcp-wasm '^(TestE2E_DefaultFilesProvider)$'
