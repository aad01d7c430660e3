package runtime

import (
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// override applies the operator's name and cache hint to the module's
// validated describe d, once, at load: the result is the provider's one
// effective describe, which its name, logs, observer calls, read cache and
// every layer above read.
func (c ProviderConfig) override(d *abi.Describe) error {
	if c.name != "" { // checked by validate
		d.Name = c.name
	}
	if c.cacheHint != nil {
		h := *c.cacheHint
		d.Cache = &h
		if err := d.Validate(); err != nil {
			return fmt.Errorf("%w: cache hint: %w", ErrConfig, err)
		}
	}
	return nil
}
