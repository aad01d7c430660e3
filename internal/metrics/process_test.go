package metrics

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSetProcessFamilies: a Set carries the go_ and process_ families the
// Prometheus Go client's default collectors export, with plausible values
// read from this very process, and the build info gauge.
func TestSetProcessFamilies(t *testing.T) {
	s := NewSet()
	s.SetBuildInfo("v1.2.3", "abc123", runtime.Version())
	_, e := scrape(t, s.Registry())

	v, ok := e.Value("mcpwasm_build_info", "version", "v1.2.3", "revision", "abc123", "goversion", runtime.Version())
	require.True(t, ok, "mcpwasm_build_info")
	require.Equal(t, 1.0, v)
	v, ok = e.Value("go_info", "version", runtime.Version())
	require.True(t, ok)
	require.Equal(t, 1.0, v)

	positive := []string{"go_goroutines", "go_threads", "go_memstats_alloc_bytes", "go_memstats_alloc_bytes_total",
		"go_memstats_sys_bytes", "go_memstats_next_gc_bytes"}
	if runtime.GOOS == "linux" {
		positive = append(positive, "process_open_fds", "process_max_fds", "process_virtual_memory_bytes", "process_resident_memory_bytes")
	}
	for _, name := range positive {
		v, ok := e.Value(name)
		require.True(t, ok, "%s missing", name)
		require.Greater(t, v, 0.0, name)
	}
	for _, name := range []string{"go_gc_cycles_total", "go_gc_pauses_seconds_total", "go_gc_gogc_percent", "go_gc_gomemlimit_bytes"} {
		_, ok := e.Value(name)
		require.True(t, ok, "%s missing", name)
	}
	if runtime.GOOS != "linux" {
		return
	}
	// The process started before this test did, and not long before: the
	// test process has run for less than a day.
	start, ok := e.Value("process_start_time_seconds")
	require.True(t, ok)
	require.Less(t, start, float64(time.Now().Unix())+1)
	require.Greater(t, start, float64(time.Now().Add(-24*time.Hour).Unix()))
	_, ok = e.Value("process_cpu_seconds_total")
	require.True(t, ok)
}

// TestProcessOpenFDsFollows: process_open_fds counts this process's
// descriptors at each scrape, not once.
func TestProcessOpenFDsFollows(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process_ families read /proc/self")
	}
	r := NewRegistry()
	registerProcess(r)
	_, e := scrape(t, r)
	before, _ := e.Value("process_open_fds")
	var files []*os.File
	for range 5 {
		f, err := os.Open(os.DevNull)
		require.NoError(t, err)
		files = append(files, f)
	}
	t.Cleanup(func() {
		for _, f := range files {
			f.Close()
		}
	})
	_, e = scrape(t, r)
	after, _ := e.Value("process_open_fds")
	require.GreaterOrEqual(t, after, before+5)
}

func TestParseStat(t *testing.T) {
	// A command name with a space and a parenthesis, as proc(5) allows.
	line := "4242 (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 123456 987654321 1234 18446744073709551615\n"
	f, ok := parseStat([]byte(line))
	require.True(t, ok)
	require.Equal(t, statFields{utime: 250, stime: 50, starttime: 123456, vsize: 987654321, rss: 1234}, f)
	for _, bad := range []string{"", "4242 (x", "4242 (x) S 1 2"} {
		_, ok := parseStat([]byte(bad))
		require.False(t, ok, bad)
	}
}

// TestPromtoolCheckMetrics: promtool, Prometheus's own linter, finds
// nothing wrong with a Set's exposition. It skips without promtool
// (`apt-get install prometheus`), except under CI, where it must run.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool not found: CI installs it (apt-get install prometheus)")
		}
		t.Skip("promtool not installed (apt-get install prometheus)")
	}
	s := NewSet()
	s.SetBuildInfo("v1.2.3", "abc123", runtime.Version())
	s.ProviderCall("p", "read", "", time.Millisecond)
	s.ProviderCall("p", "read", "timeout", time.Second)
	s.PoolWait("p", time.Millisecond)
	tr := s.Transport("http")
	tr.Request("resources/read", "ok", time.Millisecond)
	tr.Session(1)
	tr.Stream(1)
	tr.Notification("notifications/resources/updated")
	tr.Laggard("write_timeout")
	s.WatchProviders(func() map[string]ProviderStats { return map[string]ProviderStats{"p": {PoolSize: 4, Live: 1}} })
	s.WatchReadCache(func() int64 { return 42 })
	var text bytes.Buffer
	require.NoError(t, s.Registry().WriteText(&text))

	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = &text
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "promtool check metrics:\n%s", out)
	require.Empty(t, strings.TrimSpace(string(out)), "promtool check metrics")
}

// BenchmarkScrapeProcess measures one scrape of the go_ and process_
// families alone: what they add to every /metrics request.
//
//	go test ./internal/metrics -run XXX -bench ScrapeProcess -benchmem
func BenchmarkScrapeProcess(b *testing.B) {
	r := NewRegistry()
	registerRuntime(r)
	registerProcess(r)
	b.ReportAllocs()
	for b.Loop() {
		if err := r.WriteText(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
