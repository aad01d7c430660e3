package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// patientArgs is args after testkit's patient limit flags, so that the
// production defaults do not decide a test that is not about them; with
// --config the limits come from the file alone (serve refuses the flags),
// and args are left as they are.
func patientArgs(args []string) []string {
	if slices.Contains(args, "--config") {
		return args
	}
	return append(testkit.Flags(), args...)
}

// patientConfig gives each provider of cfg testkit's patient compile,
// init and call limits where it sets none, for the tests that load a config
// in-process: the production defaults must not decide them.
func patientConfig(cfg *config.Config) *config.Config {
	for i := range cfg.Providers {
		l := &cfg.Providers[i].Limits
		testkit.Fill(&l.Timeout, &l.InitTimeout, &l.CompileTimeout)
	}
	return cfg
}

// uriIn is the URI the files provider gives the file at rel (already
// escaped) in the granted directory dir: dir's real path, escaped, then rel.
func uriIn(t testing.TB, dir, rel string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	at, _, err := runtime.MountedAt(runtime.DirGrant{HostPath: real})
	require.NoError(t, err)
	return fileURI(at) + "/" + rel
}
