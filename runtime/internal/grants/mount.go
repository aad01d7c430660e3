// Package grants is what the operator grants a provider, read for the
// file system and for inspect: where each granted path is mounted (real
// paths resolved once, single files in their directory, nothing nested or
// granted twice), and the report that lines a provider's requests up with
// its grants. The root passes the grants down as a Set (and the granted
// paths as Dirs); opening a mount is rootfs's.
package grants

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
)

// Dir is one granted path: a host path, absolute, and where the guest sees
// it ("": at its real path). See runtime.DirGrant.
type Dir struct{ Host, Guest string }

// Mount is one mount of a provider's granted paths: a host directory
// and where the guest sees it. Several single-file grants of one directory
// share one mount.
type Mount struct {
	Guest string // the guest path: the real host path in slash form, or the operator's guest path
	Host  string // the real host directory
	// Only, when set, holds the names the mount serves (guest name -> host
	// name): single-file grants. nil serves the whole tree.
	Only map[string]string
	// Granted names the operator's paths, for messages.
	Granted []string
}

// Plan resolves the granted paths to mounts. A grant without a guest path
// is mounted at its real absolute path (the operator's symlinks resolved,
// cleaned; C:\x on Windows is /C:/x), a single file in its real parent
// directory holding only it; single files of one directory share that
// mount. Grants whose host or guest paths nest or coincide are refused, so
// that every granted file has exactly one guest path. It reads the file
// system's metadata, never a file's contents.
func Plan(dirs []Dir) ([]Mount, error) {
	var plans []Mount
	for _, d := range dirs {
		m, err := PlanOne(d)
		if err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(plans, func(o Mount) bool {
			return o.Only != nil && m.Only != nil && o.Guest == m.Guest && o.Host == m.Host
		}); i >= 0 {
			if err := plans[i].merge(m); err != nil {
				return nil, err
			}
			continue
		}
		plans = append(plans, m)
	}
	for i := range plans {
		for j := range i {
			if err := overlap(plans[j], plans[i]); err != nil {
				return nil, err
			}
		}
	}
	return plans, nil
}

// MountedAt is where the guest sees the grant d: the guest path of the
// directory, or of the file when d grants a single file (dir false). It
// reads the file system's metadata (to resolve symlinks), as Plan does.
func MountedAt(d Dir) (at string, dir bool, err error) {
	m, err := PlanOne(d)
	if err != nil {
		return "", false, err
	}
	for name := range m.Only {
		return path.Join(m.Guest, name), false, nil
	}
	return m.Guest, true, nil
}

// PlanOne plans a single grant.
func PlanOne(d Dir) (Mount, error) {
	fi, err := os.Stat(d.Host)
	if err != nil {
		return Mount{}, fmt.Errorf("%w: granted path: %w: grant an existing directory or file", errs.ErrConfig, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return Mount{}, fmt.Errorf("%w: granted path %s is neither a directory nor a regular file (%s): grant a directory or a regular file", errs.ErrConfig, d.Host, fi.Mode().Type())
	}
	// The operator named the path, so its symlinks are the operator's:
	// resolve them once, here.
	real, err := filepath.EvalSymlinks(d.Host)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return Mount{}, fmt.Errorf("%w: granted path %s: %w", errs.ErrConfig, d.Host, err)
	}
	m := Mount{Host: real, Guest: d.Guest, Granted: []string{d.Host}}
	if fi.Mode().IsRegular() {
		m.Host = filepath.Dir(real)
		name := filepath.Base(real)
		if d.Guest != "" {
			name = filepath.Base(d.Host) // named as the operator named it
		}
		m.Only = map[string]string{name: filepath.Base(real)}
	}
	if m.Guest == "" {
		if m.Guest, err = realGuestPath(m.Host); err != nil {
			return Mount{}, fmt.Errorf("%w: granted path %s: %w", errs.ErrConfig, d.Host, err)
		}
	}
	return m, nil
}

// merge adds the single files of o, a mount of the same directory, to m.
func (m *Mount) merge(o Mount) error {
	for name, host := range o.Only {
		if _, dup := m.Only[name]; dup {
			return fmt.Errorf("%w: %s and %s grant the same file: grant it once", errs.ErrConfig, m.Granted[0], o.Granted[0])
		}
		m.Only[name] = host
	}
	m.Granted = append(m.Granted, o.Granted...)
	return nil
}

// overlap refuses two mounts that share a host file or a guest path. A
// mount of single files may hold another mount below it (a file and a
// directory beside it, both granted), as long as none of its names is in
// the way.
func overlap(a, b Mount) error {
	switch {
	case hostNests(a, b) && a.Only != nil && b.Only != nil:
		return fmt.Errorf("%w: %s and %s are the same file: grant it once", errs.ErrConfig, a.Granted[0], b.Granted[0])
	case hostNests(a, b):
		return fmt.Errorf("%w: granted paths %s and %s overlap (one is inside the other): grant only the outer directory, or directories side by side", errs.ErrConfig, a.Granted[0], b.Granted[0])
	case guestClash(a, b) || guestClash(b, a):
		return fmt.Errorf("%w: granted paths %s and %s would both be seen at %s: give them guest paths side by side in a config file", errs.ErrConfig, a.Granted[0], b.Granted[0], deeper(a.Guest, b.Guest))
	}
	return nil
}

// guestClash reports whether b's guest path is a's or lies below it in a
// way a's mount does not leave room for.
func guestClash(a, b Mount) bool {
	switch {
	case a.Guest == b.Guest:
		return true
	case !under(b.Guest, a.Guest, "/"):
		return false
	case a.Only == nil:
		return true
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(b.Guest, a.Guest), "/")
	first, _, _ := strings.Cut(rest, "/")
	_, taken := a.Only[first]
	return taken
}

// hostNests reports whether some file lies in both mounts: trees that
// nest, a granted file inside a granted tree, or one file granted twice.
func hostNests(a, b Mount) bool {
	sep := string(filepath.Separator)
	switch {
	case a.Only == nil && b.Only == nil:
		return PathNests(a.Host, b.Host, sep)
	case a.Only == nil:
		return a.Host == b.Host || under(b.Host, a.Host, sep)
	case b.Only == nil:
		return hostNests(b, a)
	}
	if a.Host != b.Host {
		return false
	}
	for _, h := range a.Only {
		for _, o := range b.Only {
			if h == o {
				return true
			}
		}
	}
	return false
}

// PathNests reports whether clean absolute paths a and b are equal or one
// lies under the other, with separator sep.
func PathNests(a, b, sep string) bool {
	return a == b || under(a, b, sep) || under(b, a, sep)
}

// under reports whether p lies strictly below dir.
func under(p, dir, sep string) bool {
	if isRoot(dir) {
		return p != dir && strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir+sep)
}

// isRoot reports whether p is a file system root: "/", or a volume root
// such as C:\.
func isRoot(p string) bool { return p == "/" || strings.HasSuffix(p, string(filepath.Separator)) }

func deeper(a, b string) string {
	if len(a) > len(b) {
		return a
	}
	return b
}

// realGuestPath is where a real host directory is mounted by default: its
// own path in slash form, so that the files' URIs are their real file://
// URIs. On Windows a drive path C:\Users\me becomes /C:/Users/me, as RFC
// 8089 writes it (file:///C:/Users/me).
func realGuestPath(real string) (string, error) {
	vol := filepath.VolumeName(real)
	return guestPathFor(vol, filepath.ToSlash(real[len(vol):]))
}

// guestPathFor is realGuestPath for a volume name ("" or "C:") and the
// rest of the path in slash form.
func guestPathFor(vol, rest string) (string, error) {
	switch {
	case vol == "" && strings.HasPrefix(rest, "/"):
		return path.Clean(rest), nil
	case len(vol) == 2 && vol[1] == ':' && (vol[0]|0x20 >= 'a' && vol[0]|0x20 <= 'z'):
		return path.Clean("/" + vol + "/" + rest), nil
	case vol == "":
		return "", fmt.Errorf("not an absolute path: grant an absolute path")
	}
	return "", fmt.Errorf("a network path (%s) has no file:/// form: give it a guest path in a config file (grants.dirs[].guest)", vol)
}
