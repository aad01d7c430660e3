package served

import (
	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// readConfig reads a test's config file as config.Read does, with no
// environment, and gives each provider testkit's patient compile, init
// and call limits where the file sets none: the production defaults must
// not decide a test that is not about them.
func readConfig(path string) (*config.Config, error) {
	cfg, err := config.Read(path, testkit.NoEnv)
	if err != nil {
		return nil, err
	}
	for i := range cfg.Providers {
		l := &cfg.Providers[i].Limits
		testkit.Fill(&l.Timeout, &l.InitTimeout, &l.CompileTimeout)
	}
	return cfg, nil
}
