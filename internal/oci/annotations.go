package oci

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// ProviderAnnotations are the manifest annotations that describe a
// provider, from its describe: name, version, URI space, description (or
// title), the ABI it speaks and, as JSON, the capabilities it requests.
func ProviderAnnotations(d abi.Describe) (map[string]string, error) {
	roots := make([]string, len(d.URISpace))
	for i, r := range d.URISpace {
		roots[i] = r.String()
	}
	ann := map[string]string{
		AnnotationProvider: d.Name,
		AnnotationVersion:  d.Version,
		AnnotationURISpace: strings.Join(roots, " "),
		AnnotationABI:      fmt.Sprintf("mcpw_v%d", abi.Version),
	}
	if d.Description != "" {
		ann[AnnotationDescription] = d.Description
	} else if d.Title != "" {
		ann[AnnotationDescription] = d.Title
	}
	if d.Requests != nil {
		b, err := json.Marshal(d.Requests)
		if err != nil {
			return nil, fmt.Errorf("encode the requests of %s: %w", d.Name, err)
		}
		ann[AnnotationRequests] = string(b)
	}
	return ann, nil
}
