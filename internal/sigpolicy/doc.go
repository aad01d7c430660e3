// Package sigpolicy decides whether a module's Sigstore signatures satisfy
// the policy an operator wrote: which signers to accept (public keys, or
// certificate identities with their OIDC issuer, exact or by regular
// expression) and whether modules must be pinned by digest.
//
// Verification is sigstore-go's, offline: the bundle carries the
// certificate, transparency-log entry and timestamps, and the operator
// supplies the trusted root (Fulcio CAs, Rekor and CT log keys, timestamp
// authorities) as a file. Nothing is fetched; no TUF update happens at
// load.
//
// This package links none of it: it checks a policy's rules, reads its
// keys' fingerprints and words every verdict, and asks an Engine for the
// verification itself. Package offline is that engine; it is linked only
// into the verifier program, cmd/mcp-wasm-verify, which this package runs
// (beside the running executable, or at VerifierEnv) with one request on
// stdin, under a deadline, its answer bounded and decoded strictly. No
// verifier, or one that fails or answers out of protocol, verifies
// nothing.
//
// # Security
//
// A bundle is untrusted input: it is size-capped before parsing and
// counts only if it verifies cryptographically against the trusted
// material AND names the artifact's digest AND its signer matches a rule.
// Identity and issuer regular expressions must match the whole value (they
// are anchored), so "alice@acme\.com" does not accept
// "alice@acme.com.evil.example". A DSSE bundle counts only if its in-toto
// predicate is cosign's signature type: an attestation (provenance, SBOM)
// by the same identity is a statement about the module, not a signature of
// it. cosign 2's older formats (the .sig tag, sign-blob's own --bundle
// JSON) count when signed with a policy key or, keyless, when their Rekor
// entry (laid out as the v0.1 bundle it is) verifies against the trusted
// root and the certificate's identity is a policy's; a .sig payload only
// when it names the artifact's digest. A keyless one without a Rekor entry
// is refused with the flag that re-signs it as a bundle. When nothing
// satisfies the policy the error names the signers found and the signers
// wanted.
package sigpolicy
