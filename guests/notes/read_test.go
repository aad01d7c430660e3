package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name     string
		uri      string
		wantURIs []string
	}{
		{"note", "notes:///uri-space", []string{"notes:///uri-space"}},
		{"escaped", "notes:///uri%2Dspace", []string{"notes:///uri-space"}},
		{"tag", "notes:///tag/go", []string{"notes:///building-go-guests", "notes:///go-provider-sdk"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r abi.ReadResult
			call(t, abi.OpRead, `{"uri":"`+tt.uri+`"}`, &r)
			require.NoError(t, r.Validate(space))
			var got []string
			for _, c := range r.Contents {
				got = append(got, c.URI)
				require.Equal(t, markdown, c.MIMEType)
				require.Contains(t, *c.Text, "# ")
				require.Equal(t, []string{"user", "assistant"}, c.Annotations.Audience)
			}
			require.Equal(t, tt.wantURIs, got)
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		uri  string
		code string
	}{
		{"notes:///no-such-note", abi.CodeNotFound},
		{"notes:///tag/no-such-tag", abi.CodeNotFound},
		{"notes:///tag/", abi.CodeNotFound},
		{"notes:///", abi.CodeInvalidParams},
		{"notes://host/uri-space", abi.CodeInvalidParams},
		{"notes:uri-space", abi.CodeInvalidParams},
		{"notes:///uri-space?x=1", abi.CodeInvalidParams},
		{"other:///uri-space", abi.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			require.Equal(t, tt.code, callErr(t, abi.OpRead, `{"uri":"`+tt.uri+`"}`))
		})
	}
}
