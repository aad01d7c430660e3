package catalog_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

var (
	fuzzOnce      sync.Once
	fuzzProviders []*runtime.Provider
)

// loaded loads each SDK's catalog once per process, for the fuzz target;
// an SDK whose toolchain is missing is skipped (or fails under CI).
// FuzzCatalogSame calls it before f.Fuzz: a fuzzing worker runs that part
// too, outside the 10 s that Go's fuzzer gives each input before it kills
// the worker as hung, so a slow first load under load is not a crasher.
func loaded(t testing.TB) []*runtime.Provider {
	fuzzOnce.Do(func() {
		ctx := context.Background()
		// A disk cache: a fuzzing worker must answer within 10 s, and
		// compiling the Go catalog in a coverage-instrumented binary takes
		// longer; go test (which runs the seeds) warms it first.
		rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(filepath.Join(testguest.Root(), "build", "testguest", "fuzz-cache")))
		require.NoError(t, err)
		for _, s := range sdks {
			p, err := rt.LoadFile(ctx, s.build(t), testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1))
			require.NoError(t, err)
			fuzzProviders = append(fuzzProviders, p)
		}
	})
	if len(fuzzProviders) != len(sdks) {
		t.Skip("not every SDK's catalog loaded (see the first failure)")
	}
	return fuzzProviders
}

// FuzzCatalogSame sends each catalog the same arbitrary cursor, URI path and
// completion input, and requires the same answer from all four and no
// fault: every SDK decodes what the host sends the same way (escapes, NUL,
// non-ASCII, invalid UTF-8 that the host replaces), and no input traps one.
func FuzzCatalogSame(f *testing.F) {
	for _, seed := range []string{"", "3", "6", "0", "01", "1\x00", "3\x00x", "b\x00zz", "x", "ü", "\xff", "\\u0000", "999999999", "catalog:///items/{id}\x00",
		strings.Repeat("0", 5000)} { // a cursor the C catalog echoes into a message over the ABI's 4096 bytes
		f.Add(seed)
	}
	providers := loaded(f)
	f.Fuzz(func(t *testing.T, in string) {
		ctx := t.Context()
		var want string
		for i, p := range providers {
			// The providers live as long as the worker: count this input's
			// faults only, so that a failing input is minimized to one
			// that faults, not to any input after it.
			faults := p.Stats().Faults
			tr := map[string]outcome{
				"list":       record(p.List(ctx, in)),
				"templates":  record(p.Templates(ctx, in)),
				"changes":    record(p.Changes(ctx, abi.ChangesRequest{Cursor: in})),
				"complete":   record(p.Complete(ctx, abi.CompleteRequest{Template: "catalog:///items/{id}", Argument: abi.CompleteArgument{Name: "id", Value: in}})),
				"complete-t": record(p.Complete(ctx, abi.CompleteRequest{Template: in, Argument: abi.CompleteArgument{Name: "id"}})),
				"complete-a": record(p.Complete(ctx, abi.CompleteRequest{Template: "catalog:///items/{id}", Argument: abi.CompleteArgument{Name: in}})),
				"read":       record(p.Read(ctx, "catalog:///items/"+in)),
			}
			b, err := json.Marshal(tr)
			require.NoError(t, err)
			require.Equal(t, faults, p.Stats().Faults, "%s faulted on %q: %s", sdks[i].name, in, b)
			if i == 0 {
				want = string(b)
				continue
			}
			require.JSONEq(t, want, string(b), "%s differs from Go on %q", sdks[i].name, in)
		}
	})
}
