package oci

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

func TestProviderAnnotations(t *testing.T) {
	d := abi.Describe{Name: "notes", Version: "1.2.0", Title: "Notes",
		URISpace: []abi.URIRoot{{Scheme: "notes", Authority: "", PathPrefix: "/"}, {Scheme: "memo"}},
		Requests: &abi.Requests{Clock: true, HTTP: []abi.HTTPRequest{{Prefix: "https://api.example.com/", Reason: "sync"}}}}
	ann, err := ProviderAnnotations(d)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		AnnotationProvider:    "notes",
		AnnotationVersion:     "1.2.0",
		AnnotationURISpace:    "notes:/ memo:",
		AnnotationABI:         "mcpw_v1",
		AnnotationDescription: "Notes",
		AnnotationRequests:    `{"http":[{"prefix":"https://api.example.com/","reason":"sync"}],"clock":true}`,
	}, ann)

	d.Description, d.Requests = "Notes you keep", nil
	ann, err = ProviderAnnotations(d)
	require.NoError(t, err)
	require.Equal(t, "Notes you keep", ann[AnnotationDescription], "the description wins over the title")
	require.NotContains(t, ann, AnnotationRequests, "nothing requested, no annotation")
}
