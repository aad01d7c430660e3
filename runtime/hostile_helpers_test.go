package runtime_test

import (
	"context"
	"errors"
	"log/slog"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// hostileDir holds the hand-written fixtures (see testdata/hostile/README.md).
const hostileDir = "../testdata/hostile"

// marker is planted in every bad guest string; no error may repeat it.
const marker = "EVILMARKER"

// Limits every hostile test runs under, small so the suite stays fast.
// hostileTimeout is the deadline of the tests about a deadline only
// (hostileDeadlines); the others run under testkit.Patient, so that a
// loaded machine cannot turn a good call into a timeout.
const (
	hostileTimeout = 200 * time.Millisecond
	hostileMemory  = 4 << 20 // 64 pages
	hostileOutput  = 16 << 10
)

// hostileConfig is the provider configuration of the hostile suite: patient
// deadlines, small caps and a single instance, so the call after a fault is
// served by a fresh instance. A test about a deadline adds hostileDeadlines.
func hostileConfig() runtime.ProviderConfig {
	return testkit.Limits(runtime.NewProviderConfig()).
		WithMemoryLimit(hostileMemory).
		WithOutputLimit(hostileOutput).
		WithPoolSize(1).
		WithGrants(runtime.Grants{Config: map[string]string{"k": "v"}})
}

// hostileDeadlines gives c the short call and init deadlines of the tests
// about a deadline.
func hostileDeadlines(c runtime.ProviderConfig) runtime.ProviderConfig {
	return c.WithTimeout(hostileTimeout).WithInitTimeout(hostileTimeout)
}

// fixture returns the committed bytes of testdata/hostile/name.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	return testkit.ReadFixture(t, "hostile", name)
}

// newHostileRuntime returns a Runtime logging to logs, closed at cleanup.
func newHostileRuntime(t *testing.T, logs *logSink) *runtime.Runtime {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	rt, err := runtime.New(ctx, runtime.NewConfig().WithLogger(slog.New(logs)))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	return rt
}

// loadHostile loads a fixture; the provider, if any, is closed at cleanup.
func loadHostile(t *testing.T, rt *runtime.Runtime, name string, cfg runtime.ProviderConfig) (*runtime.Provider, error) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	p, err := rt.Load(ctx, strings.TrimSuffix(name, ".wasm"), fixture(t, name), cfg)
	if err == nil {
		t.Cleanup(func() { require.NoError(t, p.Close(ctx)) })
	}
	return p, err
}

// callOp runs one operation with a trigger: the cursor of list and
// templates, the URI of read, the completion value of complete. It returns
// the text of a read's single content ("" for other operations).
func callOp(ctx context.Context, p *runtime.Provider, op, arg string) (string, error) {
	switch op {
	case abi.OpList:
		_, err := p.List(ctx, arg)
		return "", err
	case abi.OpTemplates:
		_, err := p.Templates(ctx, arg)
		return "", err
	case abi.OpComplete:
		_, err := p.Complete(ctx, abi.CompleteRequest{Template: "evil:{name}", Argument: abi.CompleteArgument{Name: "name", Value: arg}})
		return "", err
	case abi.OpRead:
		res, err := p.Read(ctx, arg)
		if err != nil {
			return "", err
		}
		if len(res.Contents) != 1 || res.Contents[0].Text == nil {
			return "", errors.New("read did not return exactly one text content")
		}
		return *res.Contents[0].Text, nil
	}
	return "", errors.New("unknown operation " + op)
}

// requireGoodCalls shows the provider still serves every operation
// correctly: read, list, templates and complete with good inputs.
func requireGoodCalls(t *testing.T, p *runtime.Provider) {
	t.Helper()
	ctx := t.Context()
	text, err := callOp(ctx, p, abi.OpRead, "evil:good")
	require.NoError(t, err, "the good read after the bad call")
	require.Equal(t, "ok", text)
	page, err := p.List(ctx, "")
	require.NoError(t, err)
	require.Len(t, page.Resources, 1)
	require.Equal(t, "evil:good", page.Resources[0].URI)
	tpls, err := p.Templates(ctx, "")
	require.NoError(t, err)
	require.Len(t, tpls.ResourceTemplates, 1)
	cr, err := p.Complete(ctx, abi.CompleteRequest{Template: "evil:{name}", Argument: abi.CompleteArgument{Name: "name", Value: "g"}})
	require.NoError(t, err)
	require.Equal(t, []string{"good"}, cr.Values)
}

// requireCleanMessage checks an error message carries no raw guest bytes:
// valid UTF-8, no control characters, no planted marker.
func requireCleanMessage(t *testing.T, msg string) {
	t.Helper()
	require.True(t, utf8.ValidString(msg), "message is not UTF-8: %q", msg)
	require.NotContains(t, msg, marker, "message echoes guest text")
	for _, r := range msg {
		require.False(t, r < 0x20 || r == 0x7f, "message contains control character %U: %q", r, msg)
	}
}

// requireNoGoroutineLeak registers a cleanup that fails the test if, up to
// testkit.Wait after it ends, more goroutines run than when it started (with
// slack for the runtime's own background goroutines): goroutines that end
// late on a loaded machine are not a leak.
func requireNoGoroutineLeak(t *testing.T) {
	t.Helper()
	before := goruntime.NumGoroutine()
	t.Cleanup(func() {
		const slack = 2
		deadline := time.Now().Add(testkit.Wait)
		for {
			now := goruntime.NumGoroutine()
			if now <= before+slack {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:goruntime.Stack(buf, true)]
				t.Fatalf("goroutine leak: %d before, %d after\n%s", before, now, buf)
			}
			time.Sleep(testkit.Tick)
		}
	})
}

// logSink is a slog.Handler that keeps every record, for inspection.
type logSink struct {
	mu      sync.Mutex
	records []logRecord
}

type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *logSink) WithGroup(string) slog.Handler            { return s }

func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	s.mu.Lock()
	s.records = append(s.records, rec)
	s.mu.Unlock()
	return nil
}

// snapshot returns the records kept so far.
func (s *logSink) snapshot() []logRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]logRecord(nil), s.records...)
}

// withPrefix returns the records whose message starts with prefix.
func (s *logSink) withPrefix(prefix string) []logRecord {
	var out []logRecord
	for _, r := range s.snapshot() {
		if strings.HasPrefix(r.msg, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// requireCleanLogs checks every record is UTF-8 without terminal escapes or
// other control characters: guest text reaches the operator sanitized.
func requireCleanLogs(t *testing.T, s *logSink) {
	t.Helper()
	for _, r := range s.snapshot() {
		for _, text := range append([]string{r.msg}, mapValues(r.attrs)...) {
			require.True(t, utf8.ValidString(text), "log is not UTF-8: %q", text)
			require.False(t, strings.ContainsAny(text, "\x1b\x00\x07\x08\r\n"), "log has a control character: %q", text)
		}
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
