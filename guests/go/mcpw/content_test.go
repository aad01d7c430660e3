package mcpw

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

func TestContentHelpers(t *testing.T) {
	tests := []struct {
		name     string
		c        abi.Content
		wantText *string
		wantBlob *string
	}{
		{"text", Text("fake:///a", "text/plain", "hi"), new("hi"), nil},
		{"empty text", Text("fake:///a", "text/plain", ""), new(""), nil},
		{"blob", Blob("fake:///a", "image/png", []byte{0xff, 0xfe}), nil, new("//4=")},
		{"empty blob", Blob("fake:///a", "image/png", nil), nil, new("")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := onTheWire(t, &abi.ReadResult{Contents: []abi.Content{tt.c}}).(*abi.ReadResult)
			require.Equal(t, tt.wantText, r.Contents[0].Text)
			require.Equal(t, tt.wantBlob, r.Contents[0].Blob)
			require.NoError(t, r.Validate(space))
		})
	}
}
