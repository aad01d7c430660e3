package mcpw

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

func TestErrorConstructors(t *testing.T) {
	tests := []struct {
		err  error
		code string
	}{
		{NotFound("no %s", "x"), abi.CodeNotFound},
		{InvalidParams("bad %s", "x"), abi.CodeInvalidParams},
		{Internal("broke %s", "x"), abi.CodeInternal},
		{fmt.Errorf("wrap: %w", NotFound("no x")), abi.CodeNotFound},
		{errPlain, abi.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			e := toABIError(tt.err)
			require.Equal(t, tt.code, e.Code)
			require.Equal(t, tt.err.Error(), e.Message)
		})
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc"},
		{"ééé", 5, "éé"}, // never splits a rune
		{"a\xffb", 10, "a\uFFFDb"},
		{strings.Repeat("x", 8), 0, ""},
	}
	for _, tt := range tests {
		got := clip(tt.in, tt.max)
		require.Equal(t, tt.want, got)
		require.True(t, utf8.ValidString(got))
	}
}
