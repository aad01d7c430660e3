package main

import (
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/internal/bus"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// fleetCategory groups the flags of replicas behind a load balancer.
const fleetCategory = "Fleet (replicas behind a load balancer, with --http)"

// fleetFlags are serve's flags for a fleet of replicas (docs/scaling.md).
func fleetFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "bus", Category: fleetCategory, EnvVars: []string{"MCP_WASM_BUS"},
			Usage: "share subscriptions and change notifications with the other replicas through the Redis at `URL` " +
				"(redis://[user:password@]host:6379/0; rediss:// for TLS, verified against the system's roots or SSL_CERT_FILE); seals legacy session ids so that any replica " +
				"serves any session; needs --keys-file (or --cursor-key-env) with the fleet's secret"},
		&cli.StringFlag{Name: "bus-prefix", Category: fleetCategory, Value: bus.DefaultPrefix, Usage: "`PREFIX` of the fleet's Redis keys and channel (fleets sharing one Redis take different ones)"},
		&cli.DurationFlag{Name: "session-lifetime", Category: fleetCategory, Value: server.DefaultSessionLifetime,
			Usage: "with --bus, how long a sealed legacy session id stays valid (the client then initializes again)"},
		&cli.DurationFlag{Name: "change-window", Category: fleetCategory, Value: server.DefaultChangeWindow,
			Usage: "with --bus, how long a change announced by one replica keeps the others from announcing the same change"},
	}
}

// Purposes of the subkeys derived from the fleet secret: a key never
// serves two purposes.
const (
	cursorKeyInfo  = "mcp-wasm cursor signing v1"
	sessionKeyInfo = "mcp-wasm session sealing v1"
)

// subkey derives the 32-byte key of one purpose from a secret (HKDF-SHA256).
func subkey(secret []byte, info string) []byte {
	k, err := hkdf.Key(sha256.New, secret, nil, info, 32)
	if err != nil {
		panic("BUG: hkdf: " + err.Error()) // only for a length past 255 hashes
	}
	return k
}

// subkeys derives the keys of one purpose from the current secret and the
// previous ones.
func subkeys(key []byte, previous [][]byte, info string) ([]byte, [][]byte) {
	if key == nil {
		return nil, nil
	}
	var old [][]byte
	for _, p := range previous {
		old = append(old, subkey(p, info))
	}
	return subkey(key, info), old
}

// withFleet joins scfg to the fleet --bus names, sealing session ids with
// the subkeys of the fleet secret (key, previous). Without --bus it
// returns scfg and a no-op close.
func withFleet(c *cli.Context, scfg server.Config, key []byte, previous [][]byte, log *slog.Logger) (server.Config, func(), error) {
	url := c.String("bus")
	if url == "" {
		return scfg, func() {}, nil
	}
	if c.String("http") == "" {
		return scfg, nil, usageError("--bus needs --http ADDR: a fleet serves Streamable HTTP")
	}
	if !c.IsSet("keys-file") && !c.IsSet("cursor-key-env") {
		return scfg, nil, usageError("--bus needs the fleet's secret: give every replica the same --keys-file (or --cursor-key-env); " +
			"a key per machine or per process would make each replica refuse the others' session ids and cursors")
	}
	b, err := bus.Open(url, c.String("bus-prefix"), log)
	if err != nil {
		return scfg, nil, usageError("--bus: %v", err)
	}
	sk, sold := subkeys(key, previous, sessionKeyInfo)
	log.Info("joining a fleet", "bus", redactedBus(url), "prefix", c.String("bus-prefix"))
	scfg = scfg.WithSessionKeys(c.Duration("session-lifetime"), append([][]byte{sk}, sold...)...).
		WithBus(b, c.Duration("change-window"))
	return scfg, func() { _ = b.Close() }, nil
}

// redactedBus is the bus URL without its password, for the log.
func redactedBus(url string) string {
	if scheme, rest, ok := cutScheme(url); ok {
		for i := len(rest) - 1; i >= 0; i-- {
			if rest[i] == '@' {
				return fmt.Sprintf("%s://***@%s", scheme, rest[i+1:])
			}
		}
		return url
	}
	return "(unparsable)"
}

func cutScheme(url string) (string, string, bool) {
	for i := 0; i+3 <= len(url); i++ {
		if url[i:i+3] == "://" {
			return url[:i], url[i+3:], true
		}
	}
	return "", "", false
}
