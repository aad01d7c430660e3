package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// syncBuf collects a child's stderr.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// treePrint is every file under dir with its mode, size, time and digest.
func treePrint(t *testing.T, dir string) string {
	var b bytes.Buffer
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		fmt.Fprintf(&b, "%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			c, err := os.ReadFile(p)
			require.NoError(t, err)
			fmt.Fprintf(&b, " %x", sha256.Sum256(c))
		}
		b.WriteByte('\n')
		return nil
	}))
	return b.String()
}

// TestE2E_CompileThenServeReadOnly bakes the built-in files provider and a
// module into a cache directory with `mcp-wasm compile`, then serves each
// from it with --cache-readonly in a new process: the go-sdk client lists
// and reads, the server finds every module baked (no warning), and the
// directory is byte for byte, name for name, time for time unchanged.
func TestE2E_CompileThenServeReadOnly(t *testing.T) {
	data := filesTree(t)
	for _, tc := range []struct {
		name    string
		modules []string
	}{{"default", nil}, {"module", []string{testkit.Fixture("wat", "minimal.wasm")}}} {
		t.Run(tc.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "baked")
			args := append([]string{"compile", "--cache-dir", cache, "--allow-dir", data}, tc.modules...)
			out, err := exec.Command(binary(t), args...).CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), "compiled 1 provider(s)")
			before := treePrint(t, cache)

			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			serve := []string{"serve", "--cache-dir", cache, "--cache-readonly", "--log-level", "info", "--allow-dir", data}
			for _, m := range tc.modules {
				serve = append(serve, "--module", m)
			}
			cmd := exec.CommandContext(ctx, binary(t), serve...)
			var stderr syncBuf
			cmd.Stderr = &stderr
			client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			require.NoError(t, err)
			if tc.modules == nil {
				require.NotEmpty(t, listAll(t, cs))
				res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uriIn(t, data, "hello.txt")})
				require.NoError(t, err)
				require.NotEmpty(t, res.Contents)
			} else {
				_, err := cs.ListResources(ctx, nil)
				require.NoError(t, err)
			}
			require.NoError(t, cs.Close())
			log := stderr.String()
			require.Contains(t, log, "read-only cache dir", log)
			require.NotContains(t, log, "not in the read-only cache dir", log)
			require.NotContains(t, log, "skipped=", log)
			require.Equal(t, before, treePrint(t, cache), "serve --cache-readonly wrote to the cache dir")
		})
	}
}
