//go:build !wasip1

package mcpw

// defaultHost outside wasm discards logs and grants no config; use WithHost.
var defaultHost Host = nopHost{}

// nopHost discards logs and grants no config.
type nopHost struct{}

func (nopHost) Log(Level, string)            {}
func (nopHost) Config(string) (string, bool) { return "", false }

// rawContent outside wasm has no host to hand bytes to: contents are sent
// inline (escaped text, base64 blobs), as a host without content_write
// would need them.
func rawContent([]byte) int { return -1 }
