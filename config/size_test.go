package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"4096": 4096, "64MiB": 64 << 20, "1 GiB": 1 << 30, "10MB": 10e6, "512KiB": 512 << 10} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "lots", "-1", "1.5MiB", "99999999999999999999GiB"} {
		_, err := ParseSize(in)
		require.Error(t, err, in)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[uint64]string{0: "0B", 1: "1B", 1024: "1KiB", 1536: "1536B", 64 << 20: "64MiB", 3 << 30: "3GiB"} {
		require.Equal(t, want, FormatSize(n))
	}
	require.Equal(t, 1<<40, ClampInt(1<<62))
}
