package server

import (
	"fmt"
	"slices"
	"time"
)

// fleetConfig is how a server takes part in a fleet of replicas.
type fleetConfig struct {
	sessionKeys [][]byte // nil: legacy session ids are go-sdk's, held by one process
	lifetime    time.Duration
	window      time.Duration
	bus         Bus
}

// WithSessionKeys makes legacy session ids sealed (sealed.go): any
// replica given the same keys serves any session, with no affinity and no
// store. The first key (32 bytes, derived from the fleet secret) seals;
// the others, from before a rotation, still open. A sealed id is valid for
// lifetime (0: DefaultSessionLifetime) or until the session is deleted.
// Without it (the default), sessions live in this process only.
func (c Config) WithSessionKeys(lifetime time.Duration, keys ...[]byte) Config {
	c.fleetCfg.sessionKeys = nil
	for _, k := range keys {
		c.fleetCfg.sessionKeys = append(c.fleetCfg.sessionKeys, slices.Clone(k))
	}
	c.fleetCfg.lifetime = lifetime
	return c
}

// WithBus shares subscriptions, change notifications and closed sessions
// with the other replicas through bus (internal/bus: Redis): each change
// is delivered once to each interested client, whichever replica saw it
// and whichever holds the client's stream. A change claimed by one
// replica keeps the others from announcing the same change for window
// (0: DefaultChangeWindow). It needs WithSessionKeys, and ServeStreamable
// (which hears the bus while it serves). Without it (the default), changes
// reach the clients of this process only.
func (c Config) WithBus(bus Bus, window time.Duration) Config {
	c.fleetCfg.bus, c.fleetCfg.window = bus, window
	return c
}

// newFleet is the fleet of a validated config, nil outside one.
func (c Config) newFleet() (*fleet, error) {
	fc := c.fleetCfg
	if fc.sessionKeys == nil {
		if fc.bus != nil {
			return nil, fmt.Errorf("configuring server: a bus needs session keys: give WithSessionKeys the fleet's session key")
		}
		return nil, nil
	}
	seal, err := newSealer(fc.sessionKeys, cmpDuration(fc.lifetime, DefaultSessionLifetime))
	if err != nil {
		return nil, fmt.Errorf("configuring server: %w", err)
	}
	return newFleet(seal, fc.bus, cmpDuration(fc.window, DefaultChangeWindow)), nil
}

func cmpDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
