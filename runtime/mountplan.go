package runtime

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// mountPlan is one mount of a provider's granted paths: a host directory
// and where the guest sees it. Several single-file grants of one directory
// share one mount.
type mountPlan struct {
	guest string // the guest path: the real host path in slash form, or the operator's guest path
	host  string // the real host directory
	// only, when set, holds the names the mount serves (guest name -> host
	// name): single-file grants. nil serves the whole tree.
	only map[string]string
	// granted names the operator's paths, for messages.
	granted []string
}

// planMounts resolves the grants to mounts. A grant without a guest path
// is mounted at its real absolute path (the operator's symlinks resolved,
// cleaned; C:\x on Windows is /C:/x), a single file in its real parent
// directory holding only it; single files of one directory share that
// mount. Grants whose host or guest paths nest or coincide are refused, so
// that every granted file has exactly one guest path. It reads the file
// system's metadata, never a file's contents.
func planMounts(g Grants) ([]mountPlan, error) {
	var plans []mountPlan
	for _, d := range g.Dirs {
		m, err := planOne(d)
		if err != nil {
			return nil, err
		}
		if i := slices.IndexFunc(plans, func(o mountPlan) bool {
			return o.only != nil && m.only != nil && o.guest == m.guest && o.host == m.host
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
// reads the file system's metadata (to resolve symlinks), as Load does.
func MountedAt(d DirGrant) (at string, dir bool, err error) {
	m, err := planOne(d)
	if err != nil {
		return "", false, err
	}
	for name := range m.only {
		return path.Join(m.guest, name), false, nil
	}
	return m.guest, true, nil
}

// planOne plans a single grant.
func planOne(d DirGrant) (mountPlan, error) {
	fi, err := os.Stat(d.HostPath)
	if err != nil {
		return mountPlan{}, fmt.Errorf("%w: granted path: %w: grant an existing directory or file", ErrConfig, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return mountPlan{}, fmt.Errorf("%w: granted path %s is neither a directory nor a regular file (%s): grant a directory or a regular file", ErrConfig, d.HostPath, fi.Mode().Type())
	}
	// The operator named the path, so its symlinks are the operator's:
	// resolve them once, here.
	real, err := filepath.EvalSymlinks(d.HostPath)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return mountPlan{}, fmt.Errorf("%w: granted path %s: %w", ErrConfig, d.HostPath, err)
	}
	m := mountPlan{host: real, guest: d.GuestPath, granted: []string{d.HostPath}}
	if fi.Mode().IsRegular() {
		m.host = filepath.Dir(real)
		name := filepath.Base(real)
		if d.GuestPath != "" {
			name = filepath.Base(d.HostPath) // named as the operator named it
		}
		m.only = map[string]string{name: filepath.Base(real)}
	}
	if m.guest == "" {
		if m.guest, err = realGuestPath(m.host); err != nil {
			return mountPlan{}, fmt.Errorf("%w: granted path %s: %w", ErrConfig, d.HostPath, err)
		}
	}
	return m, nil
}

// merge adds the single files of o, a mount of the same directory, to m.
func (m *mountPlan) merge(o mountPlan) error {
	for name, host := range o.only {
		if _, dup := m.only[name]; dup {
			return fmt.Errorf("%w: %s and %s grant the same file: grant it once", ErrConfig, m.granted[0], o.granted[0])
		}
		m.only[name] = host
	}
	m.granted = append(m.granted, o.granted...)
	return nil
}

// overlap refuses two mounts that share a host file or a guest path. A
// mount of single files may hold another mount below it (a file and a
// directory beside it, both granted), as long as none of its names is in
// the way.
func overlap(a, b mountPlan) error {
	switch {
	case hostNests(a, b) && a.only != nil && b.only != nil:
		return fmt.Errorf("%w: %s and %s are the same file: grant it once", ErrConfig, a.granted[0], b.granted[0])
	case hostNests(a, b):
		return fmt.Errorf("%w: granted paths %s and %s overlap (one is inside the other): grant only the outer directory, or directories side by side", ErrConfig, a.granted[0], b.granted[0])
	case guestClash(a, b) || guestClash(b, a):
		return fmt.Errorf("%w: granted paths %s and %s would both be seen at %s: give them guest paths side by side in a config file", ErrConfig, a.granted[0], b.granted[0], deeper(a.guest, b.guest))
	}
	return nil
}

// guestClash reports whether b's guest path is a's or lies below it in a
// way a's mount does not leave room for.
func guestClash(a, b mountPlan) bool {
	switch {
	case a.guest == b.guest:
		return true
	case !under(b.guest, a.guest, "/"):
		return false
	case a.only == nil:
		return true
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(b.guest, a.guest), "/")
	first, _, _ := strings.Cut(rest, "/")
	_, taken := a.only[first]
	return taken
}

// hostNests reports whether some file lies in both mounts: trees that
// nest, a granted file inside a granted tree, or one file granted twice.
func hostNests(a, b mountPlan) bool {
	sep := string(filepath.Separator)
	switch {
	case a.only == nil && b.only == nil:
		return pathNests(a.host, b.host, sep)
	case a.only == nil:
		return a.host == b.host || under(b.host, a.host, sep)
	case b.only == nil:
		return hostNests(b, a)
	}
	if a.host != b.host {
		return false
	}
	for _, h := range a.only {
		for _, o := range b.only {
			if h == o {
				return true
			}
		}
	}
	return false
}

// pathNests reports whether clean absolute paths a and b are equal or one
// lies under the other, with separator sep.
func pathNests(a, b, sep string) bool {
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
