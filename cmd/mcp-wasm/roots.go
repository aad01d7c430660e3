package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// maxRoots is the most roots a client may announce at once: each granted
// one is a preopened directory of the provider. A longer list is refused
// whole and the roots granted before stay.
const maxRoots = 64

// grantRootsFlag is serve's --grant-roots.
func grantRootsFlag() cli.Flag {
	return &cli.BoolFlag{Name: "grant-roots", Usage: "stdio, built-in files provider: also grant read-only the file:// roots the client announces " +
		"(workspace folders), each an existing directory that is not /, your home directory, one that holds it, or the temp directory; " +
		"followed when the client says they changed. Without --allow-dir, only the roots are served"}
}

// checkGrantRoots refuses --grant-roots where it cannot mean what it says.
func checkGrantRoots(c *cli.Context) error {
	if !c.Bool("grant-roots") {
		return nil
	}
	switch {
	case c.String("http") != "":
		return usageError("--grant-roots works over stdio only: over HTTP one client's roots would be granted to every client; give the directories with --allow-dir")
	case c.String("config") != "":
		return usageError("--grant-roots and --config: the config file alone grants its providers' directories; drop --grant-roots")
	case len(c.StringSlice("module")) > 0:
		return usageError("--grant-roots grants to the built-in files provider only: drop --module, or grant the module's directories with --allow-dir")
	}
	return nil
}

// rootGrants is the built-in files provider's grants under --grant-roots:
// the operator's --allow-dir and the client's roots that pass checkRoot.
// reread is the set's Reread; update reloads the set.
type rootGrants struct {
	spec config.Provider // the built-in provider with the operator's grants
	log  *slog.Logger

	mu    sync.Mutex
	roots []string    // real directories granted from the client's roots, sorted
	set   *served.Set // set once serving starts, before the first update
}

// newRootGrants starts from the built-in provider of cfg (configFromFlags),
// or from the spec the flags give when nothing is granted yet.
func newRootGrants(c *cli.Context, cfg *config.Config, log *slog.Logger) *rootGrants {
	g := &rootGrants{log: log}
	if len(cfg.Providers) == 1 {
		g.spec = cfg.Providers[0]
	} else if spec, err := providerFromFlags(c); err == nil { // parsed without error by configFromFlags already
		g.spec = builtinSpec(c, spec)
	}
	return g
}

// serving hands g the set it reloads; roots announced before are read
// again at the next change. A nil g does nothing.
func (g *rootGrants) serving(set *served.Set) {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.set = set
	g.mu.Unlock()
}

// configLocked is the config of the current grants, g.mu held: no
// provider at all while nothing is granted.
func (g *rootGrants) configLocked() *config.Config {
	dirs := slices.Clone(g.spec.Grants.Dirs)
	for _, r := range g.roots {
		dirs = append(dirs, runtime.DirGrant{HostPath: r})
	}
	dirs = outermost(dirs)
	if len(dirs) == 0 {
		return &config.Config{}
	}
	p := g.spec
	p.Grants.Dirs = dirs
	return &config.Config{Providers: []config.Provider{p}}
}

// update is the server's RootsFunc: it checks every root the client
// announces, logs the ones refused, and reloads the provider when the
// directories granted change. A reload that fails keeps the old grants.
func (g *rootGrants) update(ctx context.Context, roots []server.Root) {
	if len(roots) > maxRoots {
		g.log.Warn("client roots refused: the roots granted before stay", "roots", len(roots), "most", maxRoots)
		return
	}
	var dirs []string
	for _, r := range roots {
		dir, err := checkRoot(r.URI)
		if err != nil {
			g.log.Warn("client root not granted", "root", clipQuote(r.URI), "reason", err.Error())
			continue
		}
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	slices.Sort(dirs)
	g.mu.Lock()
	defer g.mu.Unlock()
	if slices.Equal(dirs, g.roots) || g.set == nil {
		return
	}
	before := g.roots
	g.roots = dirs
	if err := g.set.Reload(ctx, "client roots changed"); err != nil {
		g.roots = before
		return
	}
	g.log.Info("client roots granted, read-only", "dirs", dirs)
}

// reread is the set's Reread. It takes no lock: the set rereads only in
// update's Reload, which holds g.mu (a config from flags has no file to
// watch and no SIGHUP reload).
func (g *rootGrants) reread() (*config.Config, error) { return g.configLocked(), nil }

// checkRoot turns a root's URI into the real directory it grants, or says
// why it grants none: only file:// URIs of this machine, absolute and
// clean, naming an existing directory that broadDir does not refuse.
func checkRoot(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", errors.New("not a URI")
	case u.Scheme != "file":
		return "", errors.New("not a file:// URI")
	case u.Host != "" && u.Host != "localhost":
		return "", errors.New("names another machine")
	case u.User != nil, u.RawQuery != "", u.ForceQuery, u.Fragment != "", u.Opaque != "":
		return "", errors.New("has parts a directory's URI does not")
	}
	p := u.Path
	if len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	if !path.IsAbs(p) || path.Clean(p) != p || slices.Contains([]byte(p), 0) {
		return "", errors.New("not an absolute, clean path")
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "", errors.New("no such directory")
	case !fi.IsDir():
		return "", errors.New("not a directory")
	}
	real := realPath(p)
	if why := broadDir(real); why != "" {
		return "", fmt.Errorf("is %s: grant a project directory instead", why)
	}
	return real, nil
}

// outermost drops every grant inside another one: a root inside an
// --allow-dir, or inside another root, adds nothing, and the runtime
// refuses overlapping grants.
func outermost(dirs []runtime.DirGrant) []runtime.DirGrant {
	slices.SortFunc(dirs, func(a, b runtime.DirGrant) int { return strings.Compare(a.HostPath, b.HostPath) })
	var out []runtime.DirGrant
	for _, d := range dirs {
		covered := slices.ContainsFunc(out, func(o runtime.DirGrant) bool {
			return o.HostPath == d.HostPath || within(d.HostPath, o.HostPath)
		})
		if !covered {
			out = append(out, d)
		}
	}
	return out
}

// clipQuote quotes a client's string for a log line, at most 200 bytes.
func clipQuote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strconv.Quote(s)
}
