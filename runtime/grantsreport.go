package runtime

import (
	"context"
	"os"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/grants"
)

// GrantLine is one row of what a provider requests next to what the
// operator granted, for inspect. Secret values are always masked.
type GrantLine struct {
	// Kind is "filesystem", "config", "secret", "http", "clock" or "random".
	Kind string `json:"kind"`
	// Requested is what the provider asked for; "" if it did not ask.
	Requested string `json:"requested,omitempty"`
	// Granted is what the operator gave; "" if nothing.
	Granted string `json:"granted,omitempty"`
	// Note flags a mismatch worth the operator's attention.
	Note string `json:"note,omitempty"`
}

// GrantReport lines up d's requests (d may be nil when the module did not
// load) with g. It shows no secret and reads no file's contents: granted
// paths are resolved (symlinks, single files) to where they are mounted.
func GrantReport(d *abi.Describe, g Grants) []GrantLine {
	lines := grants.Report(d, g.set())
	out := make([]GrantLine, len(lines))
	for i, l := range lines {
		out[i] = GrantLine{Kind: l.Kind, Requested: l.Requested, Granted: l.Granted, Note: l.Note}
	}
	return out
}

// MountedAt is where the guest sees the grant d: the guest path of the
// directory, or of the file when d grants a single file (dir false). It
// reads the file system's metadata (to resolve symlinks), as Load does.
func MountedAt(d DirGrant) (at string, dir bool, err error) {
	return grants.MountedAt(grants.Dir{Host: d.HostPath, Guest: d.GuestPath})
}

// set is g as the grants package takes it.
func (g Grants) set() grants.Set {
	s := grants.Set{Config: g.Config, Secrets: g.Secrets, HTTP: g.HTTP.egressGrant(), Clock: g.Clock, Random: g.Random}
	for _, d := range g.Dirs {
		s.Dirs = append(s.Dirs, grants.Dir{Host: d.HostPath, Guest: d.GuestPath})
	}
	return s
}

// describeWithStandIns loads wasm once more, only to read its description,
// when it was refused for want of a grant: it links the missing imports to
// stand-ins that reach nothing (an empty directory, an HTTP prefix under
// the reserved .invalid domain, which never resolves).
func (r *Runtime) describeWithStandIns(ctx context.Context, hint string, wasm []byte, cfg ProviderConfig) (*abi.Describe, error) {
	g := cfg.Grants()
	if len(g.Dirs) == 0 {
		dir, err := os.MkdirTemp("", "mcp-wasm-inspect-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		g.Dirs = []DirGrant{{HostPath: dir, GuestPath: "/.mcp-wasm-inspect"}}
	}
	if !g.HTTP.Granted() {
		g.HTTP = HTTPGrant{Allow: []HTTPRule{{Prefix: "https://inspect.invalid/"}}}
	}
	p, err := r.Load(ctx, hint, wasm, cfg.WithGrants(g))
	if err != nil {
		return nil, err
	}
	defer p.Close(ctx)
	d := p.Describe()
	return &d, nil
}
