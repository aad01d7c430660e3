package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// TestRereadSkills: the skills provider is in the first config and in
// every config a reload rereads; a failed reread stays failed.
func TestRereadSkills(t *testing.T) {
	skills := &config.Provider{Module: builtinFiles, Name: skillsProvider, SchemePrefix: skillsPrefix,
		Grants: runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: "/srv/skills"}}}}
	other := config.Provider{Module: "notes.wasm"}
	cfg := &config.Config{Providers: []config.Provider{other}}
	addSkills(cfg, skills)
	require.Equal(t, []config.Provider{other, *skills}, cfg.Providers)
	require.True(t, isSkills(cfg.Providers[1]))
	require.False(t, isSkills(other))

	reread := rereadSkills(skills, func() (*config.Config, error) {
		return &config.Config{Providers: []config.Provider{other}}, nil
	})
	next, err := reread()
	require.NoError(t, err)
	require.Equal(t, []config.Provider{other, *skills}, next.Providers)

	boom := errors.New("bad config")
	_, err = rereadSkills(skills, func() (*config.Config, error) { return nil, boom })()
	require.ErrorIs(t, err, boom)

	require.Nil(t, rereadSkills(skills, nil), "a config from flags is not reread")
	addSkills(cfg, nil)
	require.Len(t, cfg.Providers, 2, "no --skills-dir adds nothing")
}
