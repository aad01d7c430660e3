package runtime

import (
	"crypto/rand"

	"github.com/tetratelabs/wazero"
)

// grantModuleConfig gives the guest the real clocks and randomness only
// when granted. Otherwise wazero's defaults stay: clocks that start at a
// fixed instant and advance 1 ms per reading, and a deterministic random
// source. Arguments and environment are never set, whatever is granted;
// sleeping stays a no-op, because a host-side sleep would not stop at the
// call's deadline.
func grantModuleConfig(mc wazero.ModuleConfig, g Grants) wazero.ModuleConfig {
	if g.Clock {
		mc = mc.WithSysWalltime().WithSysNanotime()
	}
	if g.Random {
		mc = mc.WithRandSource(rand.Reader)
	}
	return mc
}
