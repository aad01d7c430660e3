package served

import (
	"context"

	"github.com/mcp-wasm/mcp-wasm/config"
)

// Lock resolves the module of every provider of cfg as a load would, but
// without its policy's digest requirement (a digest is what lock is here
// to add; the signers are still checked, and so is a pin already written),
// and returns the config file's text with each provider pinned to what it
// resolved to (config.Config.Pin): a registry tag to the manifest it names
// now, every module to its bytes' sha256. It also returns the modules, in
// the config's order. A reload or a new replica then runs exactly these
// bytes, offline once pulled.
func (l *Loader) Lock(ctx context.Context, cfg *config.Config) ([]byte, []Module, error) {
	var mods []Module
	text, err := cfg.Pin(func(p config.Provider) (string, config.ModuleRef, error) {
		req := RequestFor(p)
		req.Policy = req.Policy.Unpinned()
		m, err := l.Resolve(ctx, req)
		if err != nil {
			return "", "", err
		}
		mods = append(mods, m)
		return m.Digest, m.Pinned, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return text, mods, nil
}
