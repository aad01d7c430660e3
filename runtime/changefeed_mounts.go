package runtime

import (
	"path"
	"path/filepath"
	"slices"
)

// mountedPath is a granted host path as the change feed watches it and as
// the guest sees it.
type mountedPath struct {
	watch string // host path watched: the real granted directory, or the real path of a granted file
	guest string // the guest path: the mount of a directory, mount/name of a single file
	file  bool
}

// mountedPaths lists the provider's mounts (as load.go mounted them): a
// directory as itself, each single file under its name in its mount.
func (p *Provider) mountedPaths() []mountedPath {
	var out []mountedPath
	for _, m := range p.mountFS {
		if m.fs.Only() == nil {
			out = append(out, mountedPath{watch: m.fs.Host(), guest: m.guest})
			continue
		}
		names := make([]string, 0, len(m.fs.Only()))
		for name := range m.fs.Only() {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			out = append(out, mountedPath{watch: filepath.Join(m.fs.Host(), m.fs.Only()[name]), guest: path.Join(m.guest, name), file: true})
		}
	}
	return out
}
