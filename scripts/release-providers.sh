#!/usr/bin/env bash
# Publish the project's own providers (guests/git, guests/sqlite) the way a
# third party would: build each with the real toolchain, build it again and
# compare (reproducible, or the release stops), `mcp-wasm check` it, push it
# to an OCI registry as a Wasm OCI artifact with `mcp-wasm push`, and sign
# the pushed digest with cosign. The release workflow
# (.github/workflows/release-providers.yml) runs exactly this, keyless;
# .ci/registry.sh runs it against a registry on loopback with a key.
#
#   scripts/release-providers.sh REGISTRY/NAMESPACE VERSION
#
# Environment:
#   SIGN      keyless (default: cosign's OIDC flow, as in CI) or key:FILE
#             (cosign sign --key FILE, no transparency log upload)
#   COSIGN    the cosign binary (default: cosign on PATH; version 2.4+ or 3)
#   INSECURE  a plain-HTTP registry host:port to allow (loopback exercise)
#   PROVIDERS which providers (default: "git sqlite")
#   OUT       a file that gets one line per provider: NAME PINNED-REFERENCE
# Prints, per provider, the pinned reference and the serve line for it.
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -eq 2 ] || { echo "usage: $0 REGISTRY/NAMESPACE VERSION (e.g. ghcr.io/mcp-wasm 0.1.0)" >&2; exit 2; }
dest=${1%/} version=$2
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.-]+)?$ ]] || { echo "release: version $version is not MAJOR.MINOR.PATCH[-SUFFIX]" >&2; exit 2; }
SIGN=${SIGN:-keyless}
COSIGN=${COSIGN:-$(command -v cosign || true)}
[ -n "$COSIGN" ] || { echo "release: cosign not found: install it (go install github.com/sigstore/cosign/v3/cmd/cosign@latest) or set COSIGN" >&2; exit 2; }
PROVIDERS=${PROVIDERS:-git sqlite}
insecure=()
cosign_insecure=()
if [ -n "${INSECURE:-}" ]; then
  insecure=(--insecure-registry "$INSECURE")
  cosign_insecure=(--allow-insecure-registry --allow-http-registry)
fi
case $SIGN in
  keyless) sign_args=(--yes) ;;
  # No transparency log for a key: the key is the trust; cosign 3 needs its
  # TUF signing config turned off for that (it would fetch one otherwise).
  key:*) sign_args=(--yes --key "${SIGN#key:}" --use-signing-config=false --tlog-upload=false) ;;
  *) echo "release: SIGN=$SIGN: use keyless or key:FILE" >&2; exit 2 ;;
esac

make -s build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in $PROVIDERS; do
  [ -f "guests/$p/main.go" ] || { echo "release: guests/$p is not a Go provider" >&2; exit 2; }
  make -s "build/guests/$p.wasm"
  # The same command as the Makefile's, into another file: a release whose
  # bytes a second build does not reproduce is not published.
  GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -buildmode=c-shared -trimpath -ldflags='-s -w' -o "$tmp/$p.wasm" "./guests/$p"
  a=$(sha256sum <"build/guests/$p.wasm" | cut -d' ' -f1) b=$(sha256sum <"$tmp/$p.wasm" | cut -d' ' -f1)
  [ "$a" = "$b" ] || { echo "release: guests/$p is not reproducible: $a then $b" >&2; exit 1; }
  # Checked on real data: a repository made by git, a database made by the
  # sqlite3 shell.
  case $p in
    git)
      grant="$tmp/git-data"; mkdir -p "$grant"; printf 'checked\n' >"$grant/README.md"
      git -C "$grant" init -q -b main && git -C "$grant" add README.md &&
        git -C "$grant" -c user.name=release -c user.email=release@localhost commit -q -m check ;;
    sqlite)
      command -v sqlite3 >/dev/null || { echo "release: sqlite3 not found (apt-get install sqlite3): the check needs a database" >&2; exit 2; }
      grant="$tmp/sqlite-data"; mkdir -p "$grant"
      sqlite3 -batch -bail "$grant/check.db" "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL); CREATE INDEX t_name ON t(name);" ;;
    *) grant="$tmp/empty-$p"; mkdir -p "$grant" ;;
  esac
  build/mcp-wasm check --allow-dir "$grant" "build/guests/$p.wasm" >"$tmp/$p.check" 2>&1 || { cat "$tmp/$p.check" >&2; echo "release: $p fails mcp-wasm check" >&2; exit 1; }
  out=$(build/mcp-wasm push "${insecure[@]}" --annotation "org.opencontainers.image.source=https://github.com/mcp-wasm/mcp-wasm" \
    "build/guests/$p.wasm" "$dest/$p:$version")
  pinned=$(sed -n 's/^pushed oci:\/\///p' <<<"$out")
  [ -n "$pinned" ] || { echo "release: push of $p printed no pinned reference: $out" >&2; exit 1; }
  # Sign the digest, never the tag: the tag can move after the push.
  COSIGN_PASSWORD=${COSIGN_PASSWORD:-} "$COSIGN" sign "${sign_args[@]}" "${cosign_insecure[@]}" "$pinned" >"$tmp/$p.sign" 2>&1 ||
    { cat "$tmp/$p.sign" >&2; echo "release: cosign sign of $p failed" >&2; exit 1; }
  echo "released $p sha256:$a as oci://$pinned"
  echo "  serve: mcp-wasm serve --module oci://$pinned ..."
  [ -z "${OUT:-}" ] || echo "$p oci://$pinned" >>"$OUT"
done
