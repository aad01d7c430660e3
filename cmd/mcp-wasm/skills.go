package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// --skills-dir DIR serves a directory of Agent Skills (DIR/NAME/SKILL.md
// and its files) as skill:// resources, with the Skills extension's
// methods (server/skills.go). The directory is read by the built-in files
// provider, as --allow-dir is, under its own name and scheme prefix so
// that it sits beside any other provider; server.SkillsDir maps its
// skills+file:///DIR/NAME/... URIs to skill://NAME/... . docs/skills.md.

const (
	// skillsProvider is the name of the provider serving --skills-dir.
	skillsProvider = "skills"
	// skillsPrefix is its scheme prefix (served.Provider), never shown
	// to clients: they see skill:// only.
	skillsPrefix = "skills"
)

func skillsDirFlag() cli.Flag {
	return &cli.StringFlag{Name: "skills-dir", Usage: "serve the Agent Skills in `DIR` (DIR/NAME/SKILL.md and the files beside it) as skill://NAME/... resources, " +
		"with skill://index.json and the skills/list, skills/get and resources/directory/read methods (docs/skills.md); " +
		"beside the other providers, or alone when no --allow-dir, --module or --config is given"}
}

// skillsSpec is the provider serving the --skills-dir of c, nil without
// one: the built-in files provider granted the directory's real path.
func skillsSpec(c *cli.Context) (*config.Provider, error) {
	dir := c.String("skills-dir")
	if dir == "" {
		return nil, nil
	}
	real, err := filepath.Abs(dir)
	if err == nil {
		real, err = filepath.EvalSymlinks(real)
	}
	if err != nil {
		return nil, failure(fmt.Errorf("--skills-dir %s: %w: give an existing directory of skills", dir, err))
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return nil, failure(fmt.Errorf("--skills-dir %s: not a readable directory: give a directory holding NAME/SKILL.md", dir))
	}
	if why := broadDir(real); why != "" { // servedirs.go
		return nil, failure(fmt.Errorf("--skills-dir %s is %s: give the directory that holds the skills", dir, why))
	}
	spec, err := providerFromFlags(c) // the limits of the flags (defaults with --config)
	if err != nil {
		return nil, err
	}
	spec.Module, spec.Name, spec.SchemePrefix, spec.Policy = builtinFiles, skillsProvider, skillsPrefix, nil
	spec.Grants = runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: real}}}
	return &spec, nil
}

// addSkills adds the skills provider, if any, to cfg.
func addSkills(cfg *config.Config, skills *config.Provider) {
	if skills != nil {
		cfg.Providers = append(cfg.Providers, *skills)
	}
}

// rereadSkills returns reread adding the skills provider to every config
// it rereads, so that reloads keep it; nil for nil.
func rereadSkills(skills *config.Provider, reread func() (*config.Config, error)) func() (*config.Config, error) {
	if skills == nil || reread == nil {
		return reread
	}
	return func() (*config.Config, error) {
		next, err := reread()
		if err == nil {
			addSkills(next, skills)
		}
		return next, err
	}
}

// asSkills returns p as the server's skill:// provider when it is the one
// serving --skills-dir, else p as it is.
func asSkills(p *served.Provider) server.Provider {
	spec := p.Spec()
	if !isSkills(spec) {
		return p
	}
	root := skillsPrefix + "+file://" + (&url.URL{Path: spec.Grants.Dirs[0].HostPath}).EscapedPath() + "/"
	out, err := server.SkillsDir(p, root)
	if err != nil { // the built-in provider lists and reads: not reached
		return p
	}
	return out
}

// isSkills reports whether spec is the provider serving --skills-dir.
func isSkills(spec config.Provider) bool {
	return spec.Name == skillsProvider && spec.SchemePrefix == skillsPrefix && spec.Module == builtinFiles && len(spec.Grants.Dirs) == 1
}
