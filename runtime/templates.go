package runtime

import (
	"fmt"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// validateTemplates checks a templates page: the abi rules, RFC 6570 syntax,
// a literal scheme (no variable may choose the scheme), and that a sample
// expansion lies in the provider's URI space. Reads are still checked URI by
// URI; this stops a provider from advertising templates for URIs it does not own.
func validateTemplates(r *abi.TemplatesResult, space abi.URISpace) error {
	if err := r.Validate(); err != nil {
		return err
	}
	for i, t := range r.ResourceTemplates {
		if err := checkTemplate(t.URITemplate, space); err != nil {
			return fmt.Errorf("resourceTemplates[%d]: %w", i, err)
		}
	}
	return nil
}

func checkTemplate(tpl string, space abi.URISpace) error {
	parsed, err := uritemplate.New(tpl)
	if err != nil {
		return fmt.Errorf("%w: uriTemplate is not RFC 6570", abi.ErrInvalid)
	}
	literal, _, _ := strings.Cut(tpl, "{")
	if !strings.Contains(literal, ":") {
		return fmt.Errorf("%w: uriTemplate must start with a literal scheme", abi.ErrInvalid)
	}
	vals := uritemplate.Values{}
	for _, name := range parsed.Varnames() {
		vals.Set(name, uritemplate.String("x"))
	}
	sample, err := parsed.Expand(vals)
	if err != nil || !space.OwnsString(sample) {
		return fmt.Errorf("%w: uriTemplate: %w", abi.ErrInvalid, abi.ErrForeignURI)
	}
	return nil
}
