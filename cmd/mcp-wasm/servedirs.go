package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/config"
)

// Serving a directory gives every file under it to whoever holds the MCP
// session. Some directories are never what a user means to serve, yet
// are where a client may start mcp-wasm: a client launched from a desktop
// often starts its servers in / or in the user's home directory. broadDir
// names them, so that serve refuses them as the implicit default (no
// --allow-dir) and as client roots (--grant-roots), and warns when the
// operator grants one explicitly. RATIONALE: "Why does serve refuse to
// serve / or the home directory by default?"

// broadDir says why dir is too broad to serve unasked: "" when it is not.
// The directories, compared by their real paths:
//   - / (the whole disk);
//   - the user's home directory ($HOME and the account's), and every
//     directory that holds it (/home, /Users, /var/home, ...);
//   - /home, /Users and /root, wherever this user's home is;
//   - the system temp directory itself (os.TempDir), shared by every user
//     and program on the machine (its subdirectories are fine).
func broadDir(dir string) string {
	real := realPath(dir)
	if real == string(filepath.Separator) || filepath.Dir(real) == real {
		return "the root of the file system (the whole disk)"
	}
	for _, home := range homeDirs() {
		switch {
		case real == home:
			return "your home directory"
		case within(home, real):
			return "a directory that holds your home directory"
		}
	}
	for _, d := range []string{"/home", "/Users", "/root"} {
		if real == realPath(d) {
			return "where home directories are kept"
		}
	}
	if real == realPath(os.TempDir()) {
		return "the system temp directory, shared by every user and program"
	}
	return ""
}

// homeDirs are the user's home directory as $HOME and the account say,
// real paths, without duplicates.
func homeDirs() []string {
	var out []string
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		if r := realPath(d); !contains(out, r) {
			out = append(out, r)
		}
	}
	if h, err := os.UserHomeDir(); err == nil {
		add(h)
	}
	if u, err := user.Current(); err == nil {
		add(u.HomeDir)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// realPath is p absolute, cleaned and with its symlinks resolved; p
// cleaned when it cannot be resolved (it does not exist).
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// within reports whether inner is strictly inside outer (both clean).
func within(inner, outer string) bool {
	if outer == string(filepath.Separator) {
		return inner != outer && strings.HasPrefix(inner, outer)
	}
	return strings.HasPrefix(inner, outer+string(filepath.Separator))
}

// implicitDir is the directory serve serves with no --allow-dir: the
// current one, unless it is a broad directory, which is refused with the
// fix.
func implicitDir() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", failure(fmt.Errorf("find the current directory: %w (give --allow-dir)", err))
	}
	if why := broadDir(cwd); why != "" {
		return "", failure(fmt.Errorf("serve with no --allow-dir serves the current directory, and %s is %s: "+
			"refusing to expose it; pass --allow-dir DIR to serve a directory (the client's configuration can give it), "+
			"or start mcp-wasm from the project directory", cwd, why))
	}
	return cwd, nil
}

// warnBroadGrants logs a warning for every directory the operator granted
// on the command line that broadDir would refuse unasked: allowed, since
// the operator alone grants, but worth a line in the log.
func warnBroadGrants(log *slog.Logger, cfg *config.Config) {
	if cfg.File != "" {
		return
	}
	for _, p := range cfg.Providers {
		for _, d := range p.Grants.Dirs {
			if why := broadDir(d.HostPath); why != "" {
				log.Warn("granting a broad directory: every file under it is readable by the provider and, for the built-in files provider, by every client",
					"provider", string(p.Module), "dir", d.HostPath, "is", why)
			}
		}
	}
}
