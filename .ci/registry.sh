#!/usr/bin/env bash
# End-to-end: providers through a real registry. Starts Debian's
# docker-registry (the CNCF distribution registry, 2.8: no referrers API, so
# signatures travel by the referrers tag schema) twice on loopback ports,
# anonymous and password-protected, each with a config written here and its
# own temporary storage, then runs TestRegistryE2E: push with mcp-wasm push,
# pull back, serve by digest through the go-sdk client, tamper with a blob in
# the registry's storage, move a tag, and the bad inputs (401, unreachable,
# a container image, a layer over the cap, a wrong signer), what oras
# pushes (by default, and as the refusals tell) and what cosign 2 signs.
# Needs: apt-get install -y docker-registry (.ci/run installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

REGISTRY_BIN=${REGISTRY_BIN:-/usr/bin/docker-registry}
[ -x "$REGISTRY_BIN" ] || { echo "registry: $REGISTRY_BIN missing: apt-get install -y docker-registry"; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# free_port prints a loopback TCP port nothing listens on.
free_port() {
  local p
  for p in $(shuf -i 20000-60000 -n 50); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  echo "registry: no free port" >&2; exit 1
}

# start NAME [htpasswd]: writes NAME.yml, starts the registry on 127.0.0.1
# only, waits until /v2/ answers, sets ADDR to its host:port. It runs in
# this shell, not a $(...) subshell, so that cleanup knows its pid.
start() {
  local name=$1 auth=${2:-} port
  port=$(free_port)
  mkdir -p "$work/$name/storage"
  cat >"$work/$name.yml" <<YAML
version: 0.1
log:
  level: warn
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: $work/$name/storage
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:$port
  secret: $(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
health:
  storagedriver:
    enabled: false
YAML
  if [ -n "$auth" ]; then
    cat >>"$work/$name.yml" <<YAML
auth:
  htpasswd:
    realm: mcp-wasm-e2e
    path: $auth
YAML
  fi
  "$REGISTRY_BIN" serve "$work/$name.yml" >"$work/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v2/" || true)
    if [ "$code" = 200 ] || [ "$code" = 401 ]; then ADDR="127.0.0.1:$port"; return; fi
    sleep 0.1
  done
  echo "registry: $name did not start:" >&2; cat "$work/$name.log" >&2; exit 1
}

start open
open=$ADDR
start locked "$PWD/testdata/registry/htpasswd"
locked=$ADDR
echo "registry: $("$REGISTRY_BIN" --version) on $open (anonymous) and $locked (htpasswd)"

# oras (ORAS CLI), to push what other tools push: the one on PATH, else
# built into the work directory through the Go module proxy; without it
# (offline) the oras case is skipped, not failed.
ORAS=${ORAS:-$(command -v oras || true)}
if [ -z "$ORAS" ] && GOBIN="$work/bin" go install oras.land/oras/cmd/oras@v1.3.6 >"$work/oras-install.log" 2>&1; then
  ORAS="$work/bin/oras"
fi
echo "registry: oras ${ORAS:-not available: the oras case is skipped}"

# cosign 2, to sign with its defaults (.sig tag, sign-blob's own bundle):
# the one on PATH or at $COSIGN; it is a long build, so not installed here
# (go install github.com/sigstore/cosign/v2/cmd/cosign@v2.6.5).
COSIGN=${COSIGN:-$(command -v cosign || true)}
echo "registry: cosign ${COSIGN:-not available: the cosign 2 case is skipped}"

status=0
MCPW_COSIGN=$COSIGN MCPW_ORAS=$ORAS MCPW_REGISTRY=$open MCPW_REGISTRY_STORAGE="$work/open/storage" MCPW_REGISTRY_AUTH=$locked \
  go test -count=1 -run '^TestRegistryE2E$' -v ./cmd/mcp-wasm || status=$?

# The release, as .github/workflows/release-providers.yml runs it, against
# the loopback registry and signed with a key instead of keyless: the git and
# sqlite providers built twice (the bytes must match), checked, pushed and
# signed by cosign 3 (.ci/run installs it into the CI cache), then served
# by digest with the signature required (TestReleaseE2E).
RELEASE_COSIGN=${RELEASE_COSIGN:-$HOME/.cache/mcp-wasm-ci/bin/cosign}
if [ "$status" = 0 ]; then
  if [ -x "$RELEASE_COSIGN" ]; then
    echo "registry: release with $("$RELEASE_COSIGN" version 2>/dev/null | sed -n 's/^GitVersion: *//p')"
    (cd "$work" && COSIGN_PASSWORD= "$RELEASE_COSIGN" generate-key-pair >/dev/null)
    COSIGN_PASSWORD= SIGN="key:$work/cosign.key" COSIGN=$RELEASE_COSIGN INSECURE=$open OUT="$work/released.txt" \
      scripts/release-providers.sh "$open/mcp-wasm" 0.0.0-ci || status=$?
    if [ "$status" = 0 ]; then
      MCPW_RELEASED="$work/released.txt" MCPW_RELEASE_KEY="$work/cosign.pub" MCPW_REGISTRY=$open \
        go test -count=1 -run '^TestReleaseE2E$' -v ./cmd/mcp-wasm || status=$?
    fi
  elif [ -n "${CI:-}" ]; then
    echo "registry: $RELEASE_COSIGN missing: .ci/run installs cosign 3 for the release case" >&2; status=1
  else
    echo "registry: cosign 3 not at $RELEASE_COSIGN: the release case is skipped"
  fi
fi
if [ "$status" != 0 ]; then
  echo "--- registry logs"; tail -n 50 "$work/open.log" "$work/locked.log"
fi
exit "$status"
