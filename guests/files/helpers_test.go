package main_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// logSink keeps every record the runtime logs, guest lines included.
type logSink struct {
	mu   sync.Mutex
	msgs []string
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *logSink) WithGroup(string) slog.Handler            { return s }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, r.Level.String()+" "+r.Message)
	return nil
}

// lines returns the records logged so far that contain every fragment,
// ignoring case (WASI's error strings are capitalized).
func (s *logSink) lines(fragments ...string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, m := range s.msgs {
		lower := strings.ToLower(m)
		if !slices.ContainsFunc(fragments, func(f string) bool { return !strings.Contains(lower, strings.ToLower(f)) }) {
			out = append(out, m)
		}
	}
	return out
}

// String returns every record, for failure messages.
func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.msgs, "\n")
}

// loadFiles loads the files guest at wasm over the granted directory root,
// logging into a new sink.
func loadFiles(t *testing.T, wasm, root string) (*runtime.Provider, *logSink) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	logs := &logSink{}
	rt, err := runtime.New(ctx, runtime.NewConfig().WithLogger(slog.New(logs)).WithCacheDir(testCacheDir()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	// -race on a busy machine compiles a Go guest slowly.
	cfg := testkit.Limits(runtime.NewProviderConfig()).WithCompileTimeout(10 * time.Minute).
		WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: root, GuestPath: "/data"}}})
	p, err := rt.LoadFile(ctx, wasm, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(ctx) })
	return p, logs
}

// builds are the two files providers held to the same behaviour: this Go
// one (the Go SDK's example) and the C one (guests/cfiles, the built-in
// default). Each end-to-end test runs against both.
func builds(t testing.TB) map[string]string {
	return map[string]string{
		"go": testguest.Go(t, "guests/files"),
		"c":  testguest.C(t, "cfiles", "guests/c/mcpw.c", "guests/cfiles/cfiles.c"),
	}
}

// eachBuild runs test as a subtest against each build.
func eachBuild(t *testing.T, test func(t *testing.T, wasm string)) {
	for name, wasm := range builds(t) {
		t.Run(name, func(t *testing.T) { test(t, wasm) })
	}
}

// envFilesWasm passes the built guest to a re-executed test binary.
const envFilesWasm = "MCPW_TEST_FILES_WASM"

// testCacheDir is a compilation cache that outlives the test, so that the
// files guest (megabytes of Go wasm) compiles once per machine; a test run
// as another user (see runAsNobody) keeps its own under its TMPDIR.
func testCacheDir() string {
	if os.Getenv(envFilesWasm) != "" {
		return filepath.Join(os.TempDir(), "cache")
	}
	return filepath.Join(testguest.Root(), "build", "runtime-test-cache")
}

// listNames pages through the whole listing.
func listNames(t *testing.T, p *runtime.Provider) []string {
	t.Helper()
	var names []string
	cursor := ""
	for {
		page, err := p.List(t.Context(), cursor)
		require.NoError(t, err)
		for _, r := range page.Resources {
			names = append(names, r.Name)
		}
		if page.NextCursor == "" {
			return names
		}
		cursor = page.NextCursor
	}
}
