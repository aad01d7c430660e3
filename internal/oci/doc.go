// Package oci moves provider modules through OCI registries: it publishes a
// module as the Wasm OCI artifact of the CNCF TAG-Runtime layout (an OCI
// image manifest, config application/vnd.wasm.config.v0+json, one layer
// application/wasm), fetches it back, finds the Sigstore bundles attached to
// it as OCI referrers (and the signatures of cosign 2's older sha256-HEX.sig
// tag, handed on as CosignSig documents), and keeps everything in a
// content-addressed store.
//
// Registry authentication, the token handshake and uploads come from
// go-containerregistry; downloads are this package's own, so that every size
// cap applies before the bytes arrive and every failure says what to do.
//
// # Security
//
// A registry is not trusted. Every manifest and blob is bounded (a declared
// size over the cap is refused before the download; a body longer than
// declared is cut off) and checked against its digest before it is used or
// stored. Besides the Wasm artifact, a module is read from the layouts other
// tools publish it in (ORAS artifacts, single-layer container images whose
// tar layer holds one .wasm file, an index's wasi/wasm image), but only when
// exactly one module is there: a manifest of another shape (more layers,
// another media type, a tar with no or two modules) is refused, never
// guessed at. A tar layer is unpacked in memory, bounded in entries and in
// decompressed bytes. Plain HTTP is refused unless the host
// was named as insecure, whatever the address. The store writes to a
// temporary file, verifies, then renames: a failed download leaves nothing
// behind, and every read verifies the digest again.
//
// The package never decides whether a module may run: signatures are
// checked by internal/sigpolicy, and the caller (internal/modsource) ties
// the two together.
package oci
