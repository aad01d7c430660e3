package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/bus"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// The fleet tests run three `serve --http` replicas behind Debian's
// haproxy (round robin, no affinity) with Debian's redis-server as the
// bus, all on loopback random ports, and drive them with the official
// go-sdk client in both eras (docs/scaling.md).

// needTool returns the path of a program the fleet tests need. Locally
// they skip without it; under CI, which installs it (.ci/run), they fail.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found: .ci/run installs it (apt-get install redis-server haproxy)", name)
		}
		t.Skipf("%s not found: apt-get install redis-server haproxy to run the fleet tests", name)
	}
	return p
}

// freePort returns a loopback port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// redisServer is a redis-server the test started, restartable on its port.
type redisServer struct {
	bin  string
	port int
	cmd  *exec.Cmd
	rdb  *bus.Redis
	// extra are more redis-server arguments (a TLS port and its files).
	extra []string
}

func startRedis(t *testing.T) *redisServer {
	t.Helper()
	return startRedisOn(t, freePort(t))
}

// startRedisOn starts redis-server on port, with extra arguments.
func startRedisOn(t *testing.T, port int, extra ...string) *redisServer {
	t.Helper()
	r := &redisServer{bin: needTool(t, "redis-server"), port: port, extra: extra}
	rdb, err := bus.Open(r.url(), "", nil)
	require.NoError(t, err)
	r.rdb = rdb
	t.Cleanup(func() { r.stop(); _ = r.rdb.Close() })
	r.start(t)
	return r
}

func (r *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }
func (r *redisServer) url() string  { return "redis://" + r.addr() + "/0" }

func (r *redisServer) start(t *testing.T) {
	t.Helper()
	r.cmd = exec.Command(r.bin, append([]string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, r.extra...)...)
	r.cmd.Stdout, r.cmd.Stderr = testWriter{t}, testWriter{t}
	require.NoError(t, r.cmd.Start())
	testkit.Eventually(t, func() bool { return r.rdb.Ping(context.Background()) == nil }, "redis-server does not answer")
}

func (r *redisServer) stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		r.cmd = nil
	}
}

// listeners is how many replicas hear the bus now.
func (r *redisServer) listeners(t *testing.T) int64 {
	n, err := r.rdb.Listeners(context.Background())
	if err != nil {
		return -1
	}
	return n
}

// startHAProxy balances /mcp over backends round robin, with no affinity.
func startHAProxy(t *testing.T, backends []string) string {
	t.Helper()
	bin := needTool(t, "haproxy")
	port := freePort(t)
	var b strings.Builder
	fmt.Fprintf(&b, `global
  maxconn 2000
defaults
  mode http
  retries 3
  option redispatch
  timeout connect 5s
  timeout client 1h
  timeout server 1h
frontend mcp
  bind 127.0.0.1:%d
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk
  http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host localhost
`, port)
	for i, be := range backends {
		fmt.Fprintf(&b, "  server r%d %s check inter 300ms fall 1 rise 1\n", i, be)
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	require.NoError(t, os.WriteFile(cfg, []byte(b.String()), 0o600))
	cmd := exec.Command(bin, "-db", "-f", cfg)
	cmd.Stdout, cmd.Stderr = testWriter{t}, testWriter{t}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	testkit.Eventually(t, func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", port))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, "haproxy does not answer")
	return url
}

// changeWindow is the replicas' --change-window: above the spread of
// their detections of one file change on a loaded machine (each polls its
// change feed every second).
const changeWindow = 5 * time.Second

// fleetKeys writes the fleet's secret, which every replica is given with
// --keys-file, and returns the file's path.
func fleetKeys(t *testing.T) string {
	t.Helper()
	keys := filepath.Join(t.TempDir(), "fleet.keys")
	require.NoError(t, os.WriteFile(keys, []byte("0123456789abcdef0123456789abcdef\n"), 0o600))
	return keys
}

// fleet is three replicas behind haproxy, with a Redis bus.
type fleet struct {
	redis    *redisServer
	replicas []*httpServer
	url      string // haproxy's /mcp
	dir      string // the files every replica serves (and watches)
}

func startFleet(t *testing.T, files int, more []string) *fleet {
	t.Helper()
	f := &fleet{redis: startRedis(t), dir: t.TempDir()}
	for _, n := range more {
		require.NoError(t, os.WriteFile(filepath.Join(f.dir, n), []byte("v0"), 0o644))
	}
	for i := range files {
		name := filepath.Join(f.dir, "bulk", fmt.Sprintf("r%05d.txt", i))
		require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
		require.NoError(t, os.WriteFile(name, []byte("resource "+strconv.Itoa(i)), 0o644))
	}
	keys := fleetKeys(t)
	var backends []string
	for range 3 {
		r := startHTTP(t, nil, "--allow-dir", f.dir, "--bus", f.redis.url(), "--keys-file", keys, "--page-size", "500",
			"--change-window", changeWindow.String())
		f.replicas = append(f.replicas, r)
		backends = append(backends, strings.TrimSuffix(strings.TrimPrefix(r.url, "http://"), "/mcp"))
	}
	testkit.Eventually(t, func() bool { return f.redis.listeners(t) == 3 }, "every replica hears the bus")
	f.url = startHAProxy(t, backends)
	return f
}

// connect opens a go-sdk client session through the balancer; each
// request opens its own connection, so that round robin spreads them.
func (f *fleet) connect(t *testing.T, rev string) (*mcp.ClientSession, *heard) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	client, h := liveClient()
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: f.url, HTTPClient: hc},
		&mcp.ClientSessionOptions{ProtocolVersion: rev})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, h
}

// streamHolder is the replica holding a legacy session's event stream
// now, by the replicas' own logs; -1 for none.
func (f *fleet) streamHolder(alive map[int]bool) int {
	for i, r := range f.replicas {
		logs := r.logs()
		if alive[i] && strings.Count(logs, "session stream opened here") > strings.Count(logs, "session stream closed here") {
			return i
		}
	}
	return -1
}

// served counts, by each replica's audit log, the requests it served.
func (f *fleet) served(method string) []int {
	var n []int
	for _, r := range f.replicas {
		n = append(n, strings.Count(r.logs(), "method="+method))
	}
	return n
}

// changeEach writes each file once and waits for its one notification.
func changeEach(t *testing.T, h *heard, dir string, names []string) {
	t.Helper()
	for _, name := range names {
		uri := uriIn(t, dir, name)
		before := h.count(uri)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(time.Now().String()), 0o644))
		waitCount(t, h, uri, before)
	}
}

// listChange adds a file and waits for its one list change; then it waits
// out the change window (the test's own setting), so that the next list
// change is a new change for the fleet, not the same one seen late.
func listChange(t *testing.T, h *heard, dir, name string) {
	t.Helper()
	before := h.listChanges()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("new"), 0o644))
	require.Eventually(t, func() bool { return h.listChanges() > before }, liveWait, 10*time.Millisecond, "list_changed for %s", name)
	time.Sleep(changeWindow + 500*time.Millisecond) // past --change-window, the test's own setting
}

func requireOnce(t *testing.T, h *heard, dir string, names []string) {
	t.Helper()
	for _, name := range names {
		require.Equal(t, 1, h.count(uriIn(t, dir, name)), "%s announced exactly once", name)
	}
}

func subscribeAll(t *testing.T, cs *mcp.ClientSession, dir string, names []string) {
	t.Helper()
	for _, name := range names {
		require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uriIn(t, dir, name)}))
	}
}

func names(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s%03d.txt", prefix, i))
	}
	return out
}

// TestE2E_Fleet: in both eras, through the balancer: initialize, page
// through 5,000 resources, read, subscribe, and hear each of 100 updates
// and each list change exactly once, while requests land on every
// replica; the legacy session survives the replica holding its stream
// being killed, and notifications survive Redis being restarted.
func TestE2E_Fleet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server, haproxy and three replicas")
	}
	updates, later, down, back := names("u", 100), names("k", 20), names("d", 5), names("b", 5)
	// Every file changed later exists before the replicas start: its
	// creation is no change a subscriber could hear.
	f := startFleet(t, 5000, append(append(append(append([]string{"warm.txt"}, updates...), later...), down...), back...))
	alive := map[int]bool{0: true, 1: true, 2: true}

	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			cs, h := f.connect(t, rev)
			all := listAll(t, cs)
			require.GreaterOrEqual(t, len(all), 5000+131, "every page, from whichever replica")
			seen := map[string]bool{}
			for _, r := range all {
				require.False(t, seen[r.URI], "%s listed twice", r.URI)
				seen[r.URI] = true
			}
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uriIn(t, f.dir, "bulk/r04999.txt")})
			require.NoError(t, err)
			require.Equal(t, "resource 4999", res.Contents[0].Text)

			subscribeAll(t, cs, f.dir, append([]string{"warm.txt"}, updates...))
			editUntil(t, h, f.dir, "warm.txt") // the stream is open, the feeds have their baseline
			changeEach(t, h, f.dir, updates)
			for i := range 3 {
				listChange(t, h, f.dir, fmt.Sprintf("new-%s-%d.txt", rev, i))
			}
			editUntil(t, h, f.dir, "warm.txt") // anything late would have come by now
			requireOnce(t, h, f.dir, updates)
			require.Equal(t, 3, h.listChanges(), "each list change exactly once")
		})
	}
	for i, n := range f.served("resources/list") {
		require.Positive(t, n, "replica %d served no resources/list: the balancer did not spread the requests", i)
	}

	t.Run("replica killed", func(t *testing.T) {
		cs, h := f.connect(t, "2025-11-25")
		subscribeAll(t, cs, f.dir, append([]string{"warm.txt"}, later...))
		editUntil(t, h, f.dir, "warm.txt")
		holder := f.streamHolder(alive)
		require.GreaterOrEqual(t, holder, 0, "some replica holds the session's stream")
		require.NoError(t, f.replicas[holder].cmd.Process.Kill())
		delete(alive, holder)
		testkit.Eventually(t, func() bool { return f.streamHolder(alive) >= 0 }, "the client reopens its stream on another replica")
		editUntil(t, h, f.dir, "warm.txt")
		all := listAll(t, cs)
		require.GreaterOrEqual(t, len(all), 5000, "the session goes on through the others")
		changeEach(t, h, f.dir, later)
		editUntil(t, h, f.dir, "warm.txt")
		requireOnce(t, h, f.dir, later)
	})

	t.Run("redis restarted", func(t *testing.T) {
		cs, h := f.connect(t, "2025-11-25")
		subscribeAll(t, cs, f.dir, append(append([]string{"warm.txt"}, down...), back...))
		editUntil(t, h, f.dir, "warm.txt")
		f.redis.stop()
		all := listAll(t, cs)
		require.GreaterOrEqual(t, len(all), 5000, "lists are served while the bus is down")
		_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uriIn(t, f.dir, "bulk/r00000.txt")})
		require.NoError(t, err, "reads are served while the bus is down")
		changeEach(t, h, f.dir, down) // every replica sees them; the stream's holder delivers
		f.redis.start(t)
		testkit.Eventually(t, func() bool { return f.redis.listeners(t) == int64(len(alive)) }, "the replicas hear the bus again")
		changeEach(t, h, f.dir, back)
		editUntil(t, h, f.dir, "warm.txt")
		requireOnce(t, h, f.dir, append(down, back...))
	})
}
