package oci

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStoreVerifiesOnEveryRead(t *testing.T) {
	s := newStore(t)
	b := testWasm(100)
	d, err := s.WriteBytes(b)
	require.NoError(t, err)
	got, err := s.Read(d, 1000)
	require.NoError(t, err)
	require.Equal(t, b, got)
	info, err := os.Stat(s.blobPath(d))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	// Tampered on disk: refused, removed, and the next pull fetches again.
	require.NoError(t, os.WriteFile(s.blobPath(d), append(b, 0), 0o600))
	_, err = s.Read(d, 1000)
	require.ErrorIs(t, err, ErrDigest)
	require.False(t, s.Has(d))

	_, err = s.Read(d, 1000)
	require.True(t, IsNotExist(err))
}

func TestStoreWriteLeavesNothingOnFailure(t *testing.T) {
	s := newStore(t)
	b := testWasm(100)
	d := Digest(b)
	for name, tc := range map[string]struct {
		size int64
		data []byte
	}{
		"longer":     {int64(len(b)) - 1, b},
		"shorter":    {int64(len(b)) + 1, b},
		"other data": {int64(len(b)), append(b[:len(b)-1:len(b)-1], 'x')},
	} {
		t.Run(name, func(t *testing.T) {
			require.Error(t, s.Write(d, tc.size, bytes.NewReader(tc.data)))
			require.Empty(t, storeFiles(t, s))
		})
	}
}

func TestStoreMustBePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "open")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	_, err := OpenStore(dir)
	require.ErrorContains(t, err, "chmod 700")

	fresh := filepath.Join(t.TempDir(), "new")
	_, err = OpenStore(fresh)
	require.NoError(t, err)
	fi, err := os.Stat(fresh)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
}

func TestStoreTagsAndReferrers(t *testing.T) {
	s := newStore(t)
	r, err := ParseRef("oci://ghcr.io/acme/notes:1.0")
	require.NoError(t, err)
	_, err = s.Tag(r)
	require.True(t, IsNotExist(err))
	d := Digest([]byte("m"))
	require.NoError(t, s.SetTag(r, d))
	got, err := s.Tag(r)
	require.NoError(t, err)
	require.Equal(t, d, got)

	b1, b2 := Digest([]byte("1")), Digest([]byte("2"))
	require.NoError(t, s.AddReferrers(d, []string{b2}))
	require.NoError(t, s.AddReferrers(d, []string{b1, b2}))
	require.ElementsMatch(t, []string{b1, b2}, s.Referrers(d))
}
