package checkkit

import (
	"errors"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// checkNotFound reads URIs in the provider's space that name nothing: one
// at the root of the space, and each template expanded with a name no
// provider has. The answer must be the not_found error: the host turns it
// into MCP's resource-not-found, which clients handle; any other error
// tells them the provider is broken.
func (b *battery) checkNotFound(c *Check) {
	if !b.declares(abi.OpRead) {
		c.skip("describe does not declare read")
		return
	}
	uri := b.probeURI()
	o := b.read(uri)
	switch {
	case o.err == nil:
		c.add(Problem{What: "read " + quote(uri), Why: "it answered contents for a name the battery made up",
			Fix: "answer not_found (mcpw.NotFound, mcpw_error(MCPW_NOT_FOUND, ...)) for a URI that names nothing; serving every URI of the space makes typos look like content"})
	case !errors.Is(o.err, abi.ErrNotFound):
		c.add(Problem{What: "read " + quote(uri), Why: fmt.Sprintf("answered %s (%s), not not_found", kindName(o.err), why(o.err)),
			Fix: "answer the not_found code for a URI that names nothing: clients show resource-not-found for it, and a host counts other errors as failures"})
	}
	for i := range b.templates {
		t := &b.templates[i]
		vars, _ := templateVars(t.URITemplate)
		vals := map[string]string{}
		for _, v := range vars {
			vals[v] = probeName
		}
		uri, err := expand(t.URITemplate, vals)
		if err != nil || !b.space.OwnsString(uri) {
			continue
		}
		o := b.read(uri)
		switch {
		case o.err == nil:
			c.note(fmt.Sprintf("read %s (template %s) answered contents for a made-up value: fine if the template accepts any value", quote(uri), quote(t.URITemplate)))
		case errors.Is(o.err, abi.ErrNotFound), errors.Is(o.err, abi.ErrInvalidParams):
		default:
			if !c.add(Problem{What: "read " + quote(uri) + " (template " + quote(t.URITemplate) + ")",
				Why: fmt.Sprintf("answered %s (%s), not not_found", kindName(o.err), why(o.err)),
				Fix: "answer not_found for a value that names nothing (or invalid_params for a value of the wrong form)"}) {
				return
			}
		}
	}
}
