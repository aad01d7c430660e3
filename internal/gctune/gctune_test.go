package gctune

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestApply runs in child processes, since the settings are process-wide:
// the defaults apply, and the environment wins. The machine's own cgroup
// may lower the default limit, so the expected one is computed from it.
func TestApply(t *testing.T) {
	if os.Getenv("GCTUNE_CHILD") != "" {
		d := Apply()
		os.Stdout.WriteString(strconv.Itoa(d.Percent) + " " + strconv.FormatInt(d.Limit, 10) + " " + d.Source + "\n")
		return
	}
	run := func(env ...string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestApply$")
		cmd.Env = append(os.Environ(), append(env, "GCTUNE_CHILD=1")...)
		out, err := cmd.Output()
		require.NoError(t, err)
		line, _, _ := strings.Cut(string(out), "\n")
		return line
	}
	d := decide("/", func(string) string { return "" })
	want := strconv.FormatInt(d.Limit, 10) + " " + d.Source
	require.Equal(t, "400 "+want, run("GOGC=", "GOMEMLIMIT="))
	require.Equal(t, "50 "+want, run("GOGC=50", "GOMEMLIMIT="))
	require.Equal(t, "400 2097152 GOMEMLIMIT", run("GOGC=", "GOMEMLIMIT=2MiB"))
}

// fakeFS writes files under a temporary root: path -> content.
func fakeFS(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return root
}

const (
	mountsV2 = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	// as on hosts with both: v1 controllers, and an empty v2 hierarchy
	mountsHybrid = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n" +
		"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
		"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	// a container without its own cgroup namespace: the mount shows its
	// group, and /proc/self/cgroup names it from the host's root
	mountsDocker = "30 23 0:26 /docker/abc /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n"
)

func TestDecide(t *testing.T) {
	const mib = 1 << 20
	v2 := "0::/user.slice/app.service\n"
	v1 := "4:memory:/process_api/6d30\n1:cpu:/\n0::/\n"
	tests := []struct {
		name   string
		files  map[string]string
		env    string
		limit  int64
		source string
		cgroup int64
	}{
		{"no cgroup files", nil, "", Limit, "default", 0},
		{"v2 own group", map[string]string{
			"proc/self/cgroup": v2, "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/user.slice/app.service/memory.max": "268435456\n",
			"sys/fs/cgroup/user.slice/memory.max":             "max\n",
		}, "", SoftLimit(256 * mib), "/sys/fs/cgroup/user.slice/app.service/memory.max", 256 * mib},
		{"v2 parent binds", map[string]string{
			"proc/self/cgroup": v2, "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/user.slice/app.service/memory.max": "max\n",
			"sys/fs/cgroup/user.slice/memory.max":             "134217728\n",
		}, "", SoftLimit(128 * mib), "/sys/fs/cgroup/user.slice/memory.max", 128 * mib},
		{"v2 max means none", map[string]string{
			"proc/self/cgroup": v2, "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/user.slice/app.service/memory.max": "max\n",
		}, "", Limit, "default", 0},
		{"v2 namespace root", map[string]string{
			"proc/self/cgroup": "0::/\n", "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/memory.max": "536870912\n",
		}, "", SoftLimit(512 * mib), "/sys/fs/cgroup/memory.max", 512 * mib},
		{"v2 mount is the container's group", map[string]string{
			"proc/self/cgroup": "0::/docker/abc\n", "proc/self/mountinfo": mountsDocker,
			"sys/fs/cgroup/memory.max": "268435456\n",
		}, "", SoftLimit(256 * mib), "/sys/fs/cgroup/memory.max", 256 * mib},
		{"v1 unlimited", map[string]string{
			"proc/self/cgroup": v1, "proc/self/mountinfo": mountsHybrid,
			"sys/fs/cgroup/memory/process_api/6d30/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                  "9223372036854771712\n",
		}, "", Limit, "default", 0},
		{"v1 limited", map[string]string{
			"proc/self/cgroup": v1, "proc/self/mountinfo": mountsHybrid,
			"sys/fs/cgroup/memory/process_api/6d30/memory.limit_in_bytes": "268435456\n",
			"sys/fs/cgroup/unified/memory.max":                            "max\n",
		}, "", SoftLimit(256 * mib), "/sys/fs/cgroup/memory/process_api/6d30/memory.limit_in_bytes", 256 * mib},
		{"large cgroup keeps the default", map[string]string{
			"proc/self/cgroup": v2, "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/user.slice/memory.max": strconv.Itoa(64 << 30),
		}, "", Limit, "default", 64 << 30},
		{"unreadable content is no limit", map[string]string{
			"proc/self/cgroup": v2, "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/user.slice/app.service/memory.max": "lots\n",
			"sys/fs/cgroup/user.slice/memory.max":             "-5\n",
		}, "", Limit, "default", 0},
		{"operator's GOMEMLIMIT wins", map[string]string{
			"proc/self/cgroup": v2, "proc/self/mountinfo": mountsV2,
			"sys/fs/cgroup/user.slice/app.service/memory.max": "268435456\n",
		}, "100MiB", 0, "GOMEMLIMIT", 256 * mib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := fakeFS(t, tt.files)
			d := decide(root, func(k string) string {
				if k == "GOMEMLIMIT" {
					return tt.env
				}
				return ""
			})
			require.Equal(t, Decision{Limit: tt.limit, Source: tt.source, Cgroup: tt.cgroup}, d)
		})
	}
}

// TestSoftLimit pins the bound: in a 256 MiB container the collector aims
// under 186 MiB, leaving the rest for guests' memories and the worker.
func TestSoftLimit(t *testing.T) {
	require.Equal(t, int64(256<<20)/100*85-32<<20, SoftLimit(256<<20))
	require.Equal(t, int64(2<<30)/100*85-64<<20, SoftLimit(2<<30))
	require.Less(t, SoftLimit(256<<20), int64(186<<20))
}

func TestUnescape(t *testing.T) {
	require.Equal(t, "/a b\\c", unescape(`/a\040b\134c`))
	require.Equal(t, `/a\0`, unescape(`/a\0`))
	require.Equal(t, `/a\`, unescape(`/a\`))
}

// TestApplyInCgroup runs Apply in a child process placed in a real cgroup
// limited to 256 MiB, made under this process's own group (cgroup v1's
// memory tree, or v2 where the memory controller is delegated to it). It
// skips where no such group can be made: not root, or no writable
// controller, as on most CI runners; scripts/cgroup-load.sh is the load
// check under the same limit.
func TestApplyInCgroup(t *testing.T) {
	dir, file := makeCgroup(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte("268435456"), 0o644))
	cmd := exec.Command("sh", "-c", `echo $$ >"$1/cgroup.procs" && exec "$2" -test.run='^TestApply$'`, "sh", dir, os.Args[0])
	cmd.Env = append(os.Environ(), "GOGC=", "GOMEMLIMIT=", "GCTUNE_CHILD=1")
	out, err := cmd.Output()
	require.NoError(t, err)
	line, _, _ := strings.Cut(string(out), "\n")
	require.Equal(t, "400 "+strconv.FormatInt(SoftLimit(256<<20), 10)+" "+filepath.Join(dir, file), line)
}

// makeCgroup makes an empty cgroup under this process's own and returns it
// and the name of its memory limit file; it is removed after the test.
func makeCgroup(t *testing.T) (dir, file string) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a cgroup")
	}
	groups := readCgroups("/proc/self/cgroup")
	for _, m := range readMounts("/proc/self/mountinfo") {
		switch {
		case m.fstype == "cgroup" && m.memory && m.root == "/":
			dir, file = filepath.Join(m.point, groups["memory"]), "memory.limit_in_bytes"
		case m.fstype == "cgroup2" && m.root == "/":
			if b, err := os.ReadFile(filepath.Join(m.point, groups[""], "cgroup.subtree_control")); err == nil && strings.Contains(string(b), "memory") {
				dir, file = filepath.Join(m.point, groups[""]), "memory.max"
			}
		}
		if dir != "" {
			break
		}
	}
	if dir == "" {
		t.Skip("no writable cgroup memory controller here")
	}
	dir = filepath.Join(dir, "gctune-test-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a cgroup: %v", err)
	}
	t.Cleanup(func() { _ = os.Remove(dir) })
	return dir, file
}
