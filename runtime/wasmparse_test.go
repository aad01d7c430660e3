package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScanImports(t *testing.T) {
	imports, err := scanImports(minimalWasm(t))
	require.NoError(t, err)
	require.Len(t, imports, 3)
	require.Equal(t, wasmImport{module: "mcpw_v1", name: "input_read", kind: 0}, imports[0])

	m := minimalWasm(t)
	_, err = scanImports(m[:len(m)-3])
	require.ErrorIs(t, err, ErrNotModule)
	require.Contains(t, err.Error(), "truncated")
}

// FuzzScanImports: the import scanner reads untrusted module bytes before
// wazero does; it must never panic or read out of bounds.
func FuzzScanImports(f *testing.F) {
	f.Add(minimalWasm(f))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\x05\x01\x01a\x01b"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\xff\xff\xff\xff\x0f"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\x08\x01\x01a\x01b\x02\x01\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 8 {
			return
		}
		_, _ = scanImports(b)
	})
}
