package gctune

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// noLimit is what the kernel reports for an unlimited cgroup v1 group
// (a page-rounded MaxInt64); anything this large is no limit.
const noLimit = 1 << 62

// cgroupLimit returns the memory limit of the process's cgroup and the
// file it came from, or 0 when there is none. The effective limit is the
// smallest on the path from the process's group up to the mount's root,
// since a parent's limit binds its children. root prefixes every path
// read, so that tests can pass a fake file system; "/" is the real one.
func cgroupLimit(root string) (limit int64, source string) {
	groups := readCgroups(filepath.Join(root, "proc/self/cgroup"))
	for _, m := range readMounts(filepath.Join(root, "proc/self/mountinfo")) {
		var group string
		var ok bool
		switch {
		case m.fstype == "cgroup2":
			group, ok = groups[""]
		case m.fstype == "cgroup" && m.memory:
			group, ok = groups["memory"]
		}
		if !ok {
			continue
		}
		file := "memory.max"
		if m.fstype == "cgroup" {
			file = "memory.limit_in_bytes"
		}
		if l, src := smallestLimit(root, m, group, file); l > 0 && (limit == 0 || l < limit) {
			limit, source = l, src
		}
	}
	return limit, source
}

// smallestLimit walks from the group's directory up to the mount point.
// A group outside the mount's root (a cgroup namespace the mount does not
// show, as in a container without its own namespace) is read at the mount
// point itself, which is then the container's own group.
func smallestLimit(root string, m mount, group, file string) (limit int64, source string) {
	rel, ok := strings.CutPrefix(group, m.root)
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/") && m.root != "/") {
		rel = "/"
	}
	rel = path.Clean("/" + rel)
	for {
		f := filepath.Join(root, m.point, rel, file)
		if l, ok := readLimit(f); ok && l > 0 && (limit == 0 || l < limit) {
			limit, source = l, filepath.Join(m.point, rel, file)
		}
		if rel == "/" {
			return limit, source
		}
		rel = path.Dir(rel)
	}
}

// readLimit reads a limit file: a number of bytes, or "max" for none.
func readLimit(file string) (int64, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= noLimit {
		return 0, err == nil
	}
	return n, true
}

// readCgroups parses /proc/self/cgroup ("id:controllers:path") into the
// path per controller; the cgroup v2 group is under "".
func readCgroups(file string) map[string]string {
	groups := map[string]string{}
	f, err := os.Open(file)
	if err != nil {
		return groups
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		parts := strings.SplitN(s.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			groups[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			groups[c] = parts[2]
		}
	}
	return groups
}

type mount struct {
	root, point, fstype string
	memory              bool // a cgroup v1 mount with the memory controller
}

// readMounts returns the cgroup mounts of /proc/self/mountinfo, whose
// fields are: id parent dev root point options [optional...] - fstype
// source superoptions.
func readMounts(file string) []mount {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var mounts []mount
	s := bufio.NewScanner(f)
	for s.Scan() {
		pre, post, ok := strings.Cut(s.Text(), " - ")
		a, b := strings.Fields(pre), strings.Fields(post)
		if !ok || len(a) < 5 || len(b) < 3 || (b[0] != "cgroup" && b[0] != "cgroup2") {
			continue
		}
		m := mount{root: unescape(a[3]), point: unescape(a[4]), fstype: b[0]}
		for _, o := range strings.Split(b[2], ",") {
			m.memory = m.memory || o == "memory"
		}
		mounts = append(mounts, m)
	}
	return mounts
}

// unescape undoes mountinfo's octal escapes of space, tab, newline and
// backslash.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
