package main_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// bigTree writes n small files into root, spread as a real tree is: a
// hundred directories of up to a hundred files each below a few levels,
// plus one flat directory holding a tenth of them (the worst case for a
// listing that resumes: a page that starts inside it). It returns the
// relative paths.
func bigTree(tb testing.TB, root string, n int) []string {
	tb.Helper()
	var rels []string
	flat := n / 10
	for i := range flat {
		rels = append(rels, fmt.Sprintf("flat/f%06d.txt", i))
	}
	for i := range n - flat {
		rels = append(rels, fmt.Sprintf("t%02d/d%03d/f%06d.txt", i/10000, (i/100)%100, i))
	}
	made := map[string]bool{}
	for _, rel := range rels {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if d := filepath.Dir(p); !made[d] {
			require.NoError(tb, os.MkdirAll(d, 0o755))
			made[d] = true
		}
		require.NoError(tb, os.WriteFile(p, []byte("x"), 0o644))
	}
	return rels
}

// loadQuiet loads the files guest over root at /data with only warnings
// logged.
func loadQuiet(tb testing.TB, wasm, root string) *runtime.Provider {
	tb.Helper()
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(testCacheDir()).
		WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = rt.Close(ctx) })
	cfg := testkit.Limits(runtime.NewProviderConfig()).WithCompileTimeout(10 * time.Minute).WithTimeout(time.Minute).
		WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: root, GuestPath: "/data"}}})
	p, err := rt.LoadFile(ctx, wasm, cfg)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = p.Close(ctx) })
	return p
}

// TestFilesWasmListOnce: across the pages of a listing every file is
// listed exactly once, in order, in a tree whose page boundaries fall
// inside deep directories and inside a flat one.
func TestFilesWasmListOnce(t *testing.T) {
	root := t.TempDir()
	rels := bigTree(t, root, 2600)
	eachBuild(t, func(t *testing.T, wasm string) {
		p := loadQuiet(t, wasm, root)
		seen := map[string]int{}
		var order []string
		pages := 0
		for cursor := ""; ; {
			pages++
			require.Less(t, pages, 100, "the listing does not end")
			page, err := p.List(t.Context(), cursor)
			require.NoError(t, err)
			require.LessOrEqual(t, len(page.Resources), 500)
			for _, r := range page.Resources {
				seen[r.Name]++
				order = append(order, r.Name)
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		require.Len(t, seen, len(rels), "every file listed")
		for _, rel := range rels {
			require.Equal(t, 1, seen[rel], "%s listed once", rel)
		}
		require.IsIncreasing(t, order, "walk order is name order here")
		require.Equal(t, 6, pages, "2600 files: six pages of at most 500")
	})
}

// BenchmarkListPage lists a tree of 1k, 10k and 100k files page by page
// through the runtime, with each files provider, and reports what one
// page costs: it stays the same whatever the tree's size, because a
// cursor resumes the walk where the last page ended instead of walking
// the tree again (the flat directory of a tenth of the files is read
// whole by each page that starts in it).
//
//	go test ./guests/files -run XXX -bench ListPage -benchtime 3x
func BenchmarkListPage(b *testing.B) {
	wasms := builds(b)
	for _, n := range []int{1000, 10000, 100000} {
		root := b.TempDir()
		bigTree(b, root, n)
		for _, name := range []string{"c", "go"} {
			b.Run(fmt.Sprintf("%s/%dk", name, n/1000), func(b *testing.B) {
				p := loadQuiet(b, wasms[name], root)
				ctx := b.Context()
				pages, files := 0, 0
				b.ResetTimer()
				for b.Loop() {
					for cursor := ""; ; {
						page, err := p.List(ctx, cursor)
						if err != nil {
							b.Fatal(err)
						}
						pages++
						files += len(page.Resources)
						if cursor = page.NextCursor; cursor == "" {
							break
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pages), "ns/page")
				b.ReportMetric(float64(files)/float64(pages), "files/page")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// TestFilesWasmListThroughUnlisted: a directory whose first thousands of
// names list nothing (hidden files, empty directories) before the files
// that do is listed whole, each file once: a page reads on past what it
// cannot list, whatever the batches it reads the directory in.
func TestFilesWasmListThroughUnlisted(t *testing.T) {
	root := t.TempDir()
	var want []string
	for i := range 1500 {
		require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf(".h%04d", i)), nil, 0o644))
	}
	for i := range 700 {
		require.NoError(t, os.Mkdir(filepath.Join(root, fmt.Sprintf("e%04d", i)), 0o755))
	}
	for i := range 1300 {
		name := fmt.Sprintf("f%04d.txt", i)
		require.NoError(t, os.WriteFile(filepath.Join(root, name), nil, 0o644))
		want = append(want, name)
	}
	eachBuild(t, func(t *testing.T, wasm string) {
		p := loadQuiet(t, wasm, root)
		var got []string
		for cursor, pages := "", 0; ; pages++ {
			require.Less(t, pages, 10)
			page, err := p.List(t.Context(), cursor)
			require.NoError(t, err)
			for _, r := range page.Resources {
				got = append(got, r.Name)
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		require.Equal(t, want, got)
	})
}
