package runtime

import (
	"os"
	"path"
	"path/filepath"
)

// mountedPath is a granted host path as the change feed watches it and as
// the guest sees it.
type mountedPath struct {
	watch string // host path watched: the granted directory, or the real path of a granted file
	guest string // the guest path: the mount of a directory, mount/name of a single file
	file  bool
}

// mountedPaths resolves the provider's grants to where they are mounted
// (guestMount, as load.go mounts them); a single file appears under its
// base name in a directory at the mount. A grant that no longer resolves is
// left out.
func (p *Provider) mountedPaths() []mountedPath {
	var out []mountedPath
	for i, g := range p.cfg.grants.Dirs {
		guest, ok := p.guestMount(i, g)
		fi, err := os.Stat(g.HostPath)
		if !ok || err != nil {
			continue
		}
		if fi.IsDir() {
			out = append(out, mountedPath{watch: filepath.Clean(g.HostPath), guest: guest})
			continue
		}
		real, err := filepath.EvalSymlinks(g.HostPath)
		if err != nil {
			continue
		}
		out = append(out, mountedPath{watch: real, guest: path.Join(guest, filepath.Base(g.HostPath)), file: true})
	}
	return out
}
