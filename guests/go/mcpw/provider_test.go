package mcpw

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRegister(t *testing.T) {
	registeredMu.Lock()
	saved := registered
	registered = nil
	registeredMu.Unlock()
	t.Cleanup(func() {
		registeredMu.Lock()
		registered = saved
		registeredMu.Unlock()
	})

	require.PanicsWithValue(t, "mcpw.Register: provider is nil", func() { Register(nil) })
	p := &fake{}
	Register(p)
	require.Same(t, p, current())
	require.Panics(t, func() { Register(&fake{}) }, "a second provider is refused")
}
