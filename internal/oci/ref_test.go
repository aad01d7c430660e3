package oci

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseRef(t *testing.T) {
	dig := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		in   string
		want Ref
		err  string
	}{
		{in: "oci://ghcr.io/acme/notes:1.0", want: Ref{Host: "ghcr.io", Repository: "acme/notes", Tag: "1.0"}},
		{in: "ghcr.io/acme/notes:1.0", want: Ref{Host: "ghcr.io", Repository: "acme/notes", Tag: "1.0"}},
		{in: "oci://127.0.0.1:5000/notes@" + dig, want: Ref{Host: "127.0.0.1:5000", Repository: "notes", Digest: dig}},
		{in: "oci://localhost:5000/a/b:v1@" + dig, want: Ref{Host: "localhost:5000", Repository: "a/b", Tag: "v1", Digest: dig}},
		{in: "oci://docker.io/acme/notes:1", want: Ref{Host: "index.docker.io", Repository: "acme/notes", Tag: "1"}},
		{in: "oci://acme/notes:1.0", err: "does not start with a registry host"},
		{in: "oci://notes:1.0", err: "does not start with a registry host"},
		{in: "oci://ghcr.io/acme/notes", err: "names no tag and no digest"},
		{in: "oci://ghcr.io/acme/notes@sha256:abc", err: "64 lower-case hex"},
		{in: "oci://ghcr.io/acme/notes@sha256:" + strings.Repeat("AB", 32), err: "64 lower-case hex"},
		{in: "oci://ghcr.io/Acme/notes:1", err: "repository"},
		{in: "oci://ghcr.io/acme/notes:bad tag", err: "tag"},
		{in: "oci://", err: "is empty"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRef(tc.in)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			again, err := ParseRef(got.String())
			require.NoError(t, err)
			require.Equal(t, got, again, "String() parses back to the same reference")
		})
	}
}

func TestParseDigest(t *testing.T) {
	hex := strings.Repeat("0f", 32)
	for in, want := range map[string]string{hex: "sha256:" + hex, "sha256:" + hex: "sha256:" + hex} {
		got, err := ParseDigest(in)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	for _, bad := range []string{"", "sha256:", "sha512:" + hex, hex[:63], hex + "0", "sha256:" + strings.Repeat("zz", 32)} {
		_, err := ParseDigest(bad)
		require.Error(t, err, bad)
	}
}
