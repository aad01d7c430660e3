package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/metrics"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// builtVersion reads what the Go toolchain recorded in the built binary
// (`go version -m`) and returns the version mcp-wasm should report: the
// main module's version, else the VCS revision ("-modified" for a dirty
// tree), else "devel" (go build records no VCS state with -buildvcs=false,
// nor in a git worktree); and the revision.
func builtVersion(t *testing.T, bin string) (version, revision string) {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	require.NoError(t, err)
	modified := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod" && f[1] == "github.com/mcp-wasm/mcp-wasm" && f[2] != "(devel)":
			version = f[2]
		case len(f) >= 2 && strings.HasPrefix(f[1], "vcs.revision="):
			revision = strings.TrimPrefix(f[1], "vcs.revision=")
		case len(f) >= 2 && f[1] == "vcs.modified=true":
			modified = true
		}
	}
	switch {
	case version != "":
	case revision != "" && modified:
		version = revision + "-modified"
	case revision != "":
		version = revision
	default:
		version = "devel"
	}
	return version, revision
}

// TestE2E_Version: --version, serverInfo.version and mcpwasm_build_info
// all name the build the toolchain recorded in the binary (its module
// version, or its VCS revision), never a constant.
func TestE2E_Version(t *testing.T) {
	bin := binary(t)
	want, rev := builtVersion(t, bin)

	out, err := exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "mcp-wasm version "+want, strings.TrimSpace(string(out)))

	cs := connect(t, "2025-11-25", "--allow-dir", filesTree(t))
	require.Equal(t, want, cs.InitializeResult().ServerInfo.Version)

	srv := startHTTP(t, nil, "--allow-dir", filesTree(t))
	e, text := scrapeHTTP(t, srv)
	v, ok := e.Value("mcpwasm_build_info", "version", want, "revision", rev, "goversion", runtime.Version())
	require.True(t, ok, "mcpwasm_build_info{version=%q,revision=%q} missing:\n%s", want, rev, text)
	require.Equal(t, 1.0, v)
}

// scrapeHTTP GETs srv's /metrics and parses it strictly.
func scrapeHTTP(t *testing.T, srv *httpServer) (*metrics.Exposition, string) {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(srv.url, "/mcp") + metricsPath)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	e, err := metrics.ParseText(bytes.NewReader(body))
	require.NoError(t, err)
	return e, string(body)
}

// TestE2E_HTTP_metricsProcess: the real binary's /metrics has the go_ and
// process_ families every Go service's dashboards expect, and promtool
// (Prometheus's own linter) finds nothing wrong with the whole exposition.
// The promtool part skips without promtool, except under CI.
func TestE2E_HTTP_metricsProcess(t *testing.T) {
	srv := startHTTP(t, nil, "--allow-dir", filesTree(t))
	e, text := scrapeHTTP(t, srv)
	for _, name := range []string{"go_goroutines", "go_threads", "go_memstats_alloc_bytes", "go_memstats_sys_bytes",
		"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
		"process_open_fds", "process_max_fds", "process_start_time_seconds"} {
		_, ok := e.Value(name)
		require.True(t, ok, "%s missing from /metrics", name)
	}
	rss, _ := e.Value("process_resident_memory_bytes")
	require.Greater(t, rss, float64(1<<20), "the server's resident memory")

	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool not found: CI installs it (apt-get install prometheus)")
		}
		t.Skip("promtool not installed (apt-get install prometheus)")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "promtool check metrics:\n%s", out)
}

// TestE2E_VersionLinked: a version given at link time (deploy/Dockerfile's
// VERSION) wins over the build record, in --version and in serverInfo.
func TestE2E_VersionLinked(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcp-wasm")
	out, err := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7-test", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "mcp-wasm version v9.8.7-test", strings.TrimSpace(string(out)))

	cmd := exec.Command(bin, "serve", "--cache-dir", testguest.CompileCache(), "--allow-dir", filesTree(t))
	client := mcp.NewClient(&mcp.Implementation{Name: "version", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer cs.Close()
	require.Equal(t, "v9.8.7-test", cs.InitializeResult().ServerInfo.Version)
}
