// Package gitprov is the git provider: the repositories in the directories
// the operator grants, read-only, as git:// resources. It reads them with
// package gitobj (no git binary, nothing executed, nothing written).
//
// URIs (REF is one path segment: a branch, tag, full ref name, HEAD or a
// 40-digit commit, with "/" escaped as %2F, as RFC 6570's {ref} writes it):
//
//	git://REPO/refs                  every ref and its commit
//	git://REPO/blob/REF/PATH         a file at REF
//	git://REPO/tree/REF[/PATH]       the files below PATH at REF (ls-tree -r)
//	git://REPO/log/REF               the newest commits reachable from REF
//	git://REPO/commit/REF            a commit's metadata, message and diff
//
// REPO is the config value "name" (one grant only), or the granted
// directory's base name: never a host path.
package gitprov

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/git/gitobj"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Root is a granted directory: its guest path and a view of it.
type Root struct {
	Path string
	FS   fs.FS
}

// Defaults of the config keys.
const (
	defaultMaxFileBytes = 2 << 20
	defaultMaxDiffBytes = 256 << 10
	defaultMaxLog       = 100
	pageSize            = 500
)

// Provider serves the repositories of its roots.
type Provider struct {
	roots []Root
	repos []*repo // opened on the first call, when config can be read
	err   error
	ready bool
	cfg   settings
}

type settings struct {
	limits       gitobj.Limits
	maxFileBytes int64
	maxDiffBytes int
	maxLog       int
}

type repo struct {
	name string
	git  *gitobj.Repo
	// files caches the walk of one tree (the list's default branch).
	filesOf gitobj.ID
	files   []gitobj.FileEntry
	// listing is the last tree listing read, by tree and path.
	listing struct {
		tree   gitobj.ID
		prefix string
		text   string
	}
}

// New serves the repositories at roots.
func New(roots ...Root) *Provider { return &Provider{roots: roots} }

var configKeys = []abi.ConfigRequest{
	{Key: "name", Reason: "the repository's name in git:// URIs (default: the granted directory's base name); only with one granted directory"},
	{Key: "max_file_bytes", Reason: "largest file a read returns (default 2 MiB)"},
	{Key: "max_object_bytes", Reason: "largest object inflated (default 16 MiB)"},
	{Key: "max_delta_depth", Reason: "longest delta chain followed (default 50)"},
	{Key: "max_tree_entries", Reason: "most entries in a tree or a recursive listing (default 250000; raise the memory limit with it)"},
	{Key: "max_diff_bytes", Reason: "largest diff a commit shows (default 256 KiB)"},
	{Key: "max_log", Reason: "commits a log shows (default 100)"},
}

// Describe says what the provider is. The authority is "*": the names
// come from config, which Describe may not read.
func (p *Provider) Describe() abi.Describe {
	return abi.Describe{
		Name:        "git",
		Version:     "0.1.0",
		Title:       "Git repositories",
		Description: "Files, trees, logs, commits and diffs of the granted git repositories, read-only, at any branch, tag or commit.",
		URISpace:    []abi.URIRoot{{Scheme: "git", Authority: "*"}},
		Requests: &abi.Requests{
			Filesystem: []abi.FSRequest{{Path: "/", Reason: "the repositories to serve, one per granted directory (a working tree or a bare repository), read-only"}},
			Config:     configKeys,
		},
	}
}

// setup opens the repositories once, with the granted config.
func (p *Provider) setup(ctx context.Context) error {
	if p.ready {
		return p.err
	}
	p.ready = true
	p.err = p.open(ctx)
	return p.err
}

func (p *Provider) open(ctx context.Context) error {
	var err error
	if p.cfg, err = readSettings(ctx); err != nil {
		return err
	}
	name, _ := mcpw.Config(ctx, "name")
	if name != "" && len(p.roots) != 1 {
		return mcpw.Internal("config name is set but %d directories are granted: name one repository per provider, or drop name and use the directories' base names", len(p.roots))
	}
	seen := map[string]bool{}
	for _, root := range p.roots {
		n := name
		if n == "" {
			n = repoName(path.Base(root.Path))
		}
		if !validName(n) {
			return mcpw.Internal("repository name %q is not a URI host ([a-z0-9.-], up to 63 bytes): set config name", n)
		}
		if seen[n] {
			return mcpw.Internal("two granted directories are both named %q: grant one, or serve each with its own provider and config name", n)
		}
		seen[n] = true
		g, err := gitobj.Open(root.FS, root.Path, ".", p.cfg.limits)
		if err != nil {
			mcpw.Logf(ctx, mcpw.LevelError, "%s: %v", root.Path, err)
			return mcpw.Internal("open repository %s: %v", n, err)
		}
		p.repos = append(p.repos, &repo{name: n, git: g})
	}
	return nil
}

// repoName lowers a base name into a URI host.
func repoName(base string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(strings.TrimSuffix(base, ".git")) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

func validName(n string) bool {
	if n == "" || len(n) > 63 || n[0] == '.' || n[0] == '-' {
		return false
	}
	return repoName(n) == n
}

func readSettings(ctx context.Context) (settings, error) {
	s := settings{maxFileBytes: defaultMaxFileBytes, maxDiffBytes: defaultMaxDiffBytes, maxLog: defaultMaxLog}
	for _, k := range []struct {
		key string
		set func(int64)
		max int64
	}{
		{"max_file_bytes", func(v int64) { s.maxFileBytes = v }, 64 << 20},
		{"max_object_bytes", func(v int64) { s.limits.MaxObjectBytes = v }, 1 << 30},
		{"max_delta_depth", func(v int64) { s.limits.MaxDeltaDepth = int(v) }, 10_000},
		{"max_tree_entries", func(v int64) { s.limits.MaxTreeEntries = int(v) }, 100_000_000},
		{"max_diff_bytes", func(v int64) { s.maxDiffBytes = int(v) }, 64 << 20},
		{"max_log", func(v int64) { s.maxLog = int(v) }, 100_000},
	} {
		v, ok := mcpw.Config(ctx, k.key)
		if !ok || v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > k.max {
			return s, mcpw.Internal("config %s=%q: want a whole number from 1 to %d", k.key, v, k.max)
		}
		k.set(n)
	}
	return s, nil
}

func (p *Provider) repo(name string) *repo {
	for _, r := range p.repos {
		if strings.EqualFold(r.name, name) {
			return r
		}
	}
	return nil
}

// classify turns a gitobj error into the ABI's kinds.
func classify(err error) error {
	var known *mcpw.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &known):
		return err
	case errors.Is(err, gitobj.ErrNotFound):
		return mcpw.NotFound("%v", err)
	default:
		return mcpw.Internal("%v", err)
	}
}

func isNotFound(err error) bool { return errors.Is(err, gitobj.ErrNotFound) }
