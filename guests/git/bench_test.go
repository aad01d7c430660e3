package main_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/guests/git/gitobj"
	"github.com/mcp-wasm/mcp-wasm/guests/git/internal/gittest"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// benchFiles is the size of the generated repository the benchmarks read.
const benchFiles = 10_000

// bigRepo makes a repository of benchFiles files in 100 directories with
// the real git, packed by git gc as a clone would be.
func bigRepo(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "big")
	for i := range benchFiles {
		gittest.Write(b, dir, fmt.Sprintf("d%02d/file%04d.txt", i%100, i), "file "+strconv.Itoa(i)+"\n"+strings.Repeat("some text in the file\n", 20))
	}
	gittest.Git(b, dir, "init", "-q", "-b", "main")
	gittest.Git(b, dir, "add", "-A")
	gittest.Git(b, dir, "commit", "-q", "-m", "10,000 files")
	gittest.Git(b, dir, "gc", "-q")
	// A second commit that changes one file: its tree shares 99 of the
	// first one's 100 subtrees.
	gittest.Git(b, dir, "tag", "base")
	gittest.Write(b, dir, "d00/file0000.txt", "changed\n")
	gittest.Git(b, dir, "commit", "-q", "-am", "one change")
	return dir
}

const benchPath = "d42/file4242.txt"

// BenchmarkGit compares, in one run, a file read at HEAD and a full tree
// listing through git.wasm in the runtime (with the deadline on, as
// served) and through gitobj natively with the real git: one long-lived
// `git cat-file --batch` for reads, `git ls-tree -r HEAD` per listing
// (process start included: that is how a client would run it; its CPU is
// reported as git-cpu-ns/op).
func BenchmarkGit(b *testing.B) {
	dir := bigRepo(b)
	ctx := b.Context()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(testguest.CompileCache()))
	require.NoError(b, err)
	b.Cleanup(func() { _ = rt.Close(ctx) })
	start := time.Now()
	p, err := rt.LoadFile(ctx, testguest.Go(b, "guests/git"), runtime.NewProviderConfig().WithPoolSize(1).
		WithCompileTimeout(10*time.Minute).WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}}))
	require.NoError(b, err)
	b.Logf("load (compile cached or not): %v", time.Since(start))
	want := gittest.Git(b, dir, "cat-file", "blob", "HEAD:"+benchPath)
	wantTree := gittest.Git(b, dir, "ls-tree", "-r", "HEAD")

	b.Run("read/wasm", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			res, err := p.Read(ctx, "git://big/blob/HEAD/"+benchPath)
			if err != nil || *res.Contents[0].Text != want {
				b.Fatal(err)
			}
		}
	})
	// Every iteration a different file: its blob is inflated, not cached.
	b.Run("read-distinct/wasm", func(b *testing.B) {
		defer reportCPU(b)()
		i := 0
		for b.Loop() {
			i = (i + 1) % benchFiles
			if _, err := p.Read(ctx, fmt.Sprintf("git://big/blob/HEAD/d%02d/file%04d.txt", i%100, i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read/native", func(b *testing.B) {
		defer reportCPU(b)()
		r, err := gitobj.Open(os.DirFS(dir), dir, ".", gitobj.Limits{})
		require.NoError(b, err)
		for b.Loop() {
			id, err := r.Resolve("HEAD")
			require.NoError(b, err)
			c, err := r.Commit(id)
			require.NoError(b, err)
			e, err := r.Lookup(c.Tree, benchPath)
			require.NoError(b, err)
			obj, err := r.Read(e.ID)
			if err != nil || string(obj.Data) != want {
				b.Fatal(err)
			}
		}
	})
	b.Run("read/git-cat-file-batch", func(b *testing.B) {
		cmd := exec.Command("git", "cat-file", "--batch")
		cmd.Dir = dir
		in, _ := cmd.StdinPipe()
		outPipe, _ := cmd.StdoutPipe()
		require.NoError(b, cmd.Start())
		out := bufio.NewReader(outPipe)
		for b.Loop() {
			_, _ = io.WriteString(in, "HEAD:"+benchPath+"\n")
			hdr, err := out.ReadString('\n')
			require.NoError(b, err)
			f := strings.Fields(hdr)
			n, _ := strconv.Atoi(f[2])
			body := make([]byte, n+1)
			_, err = io.ReadFull(out, body)
			if err != nil || string(body[:n]) != want {
				b.Fatal(err)
			}
		}
		_ = in.Close()
		_ = cmd.Wait()
		b.ReportMetric(float64(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())/float64(b.N), "git-cpu-ns/op")
	})
	b.Run("tree/wasm", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			res, err := p.Read(ctx, "git://big/tree/HEAD")
			if err != nil || *res.Contents[0].Text != wantTree {
				b.Fatal(err)
			}
		}
	})
	// Alternating between two trees: the listing is built every time
	// (from parsed trees kept in memory).
	b.Run("tree-alternating/wasm", func(b *testing.B) {
		defer reportCPU(b)()
		refs := []string{"git://big/tree/HEAD", "git://big/tree/base"}
		i := 0
		for b.Loop() {
			i++
			res, err := p.Read(ctx, refs[i%2])
			if err != nil || len(*res.Contents[0].Text) < len(wantTree)-100 {
				b.Fatal(err)
			}
		}
	})
	// A fresh instance for every call (recycled after one): instantiating
	// the module, opening the repository and inflating what the call
	// needs, as the first call after a start costs.
	fresh, err := rt.LoadFile(ctx, testguest.Go(b, "guests/git"), runtime.NewProviderConfig().WithPoolSize(1).WithRecycleAfter(1).
		WithCompileTimeout(10*time.Minute).WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}}))
	require.NoError(b, err)
	b.Run("read-fresh-instance/wasm", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			if _, err := fresh.Read(ctx, "git://big/blob/HEAD/"+benchPath); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tree-fresh-instance/wasm", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			if _, err := fresh.Read(ctx, "git://big/tree/HEAD"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tree/native", func(b *testing.B) {
		defer reportCPU(b)()
		r, err := gitobj.Open(os.DirFS(dir), dir, ".", gitobj.Limits{})
		require.NoError(b, err)
		for b.Loop() {
			id, err := r.Resolve("HEAD")
			require.NoError(b, err)
			c, err := r.Commit(id)
			require.NoError(b, err)
			files, err := r.Walk(c.Tree, "")
			if err != nil || len(files) != benchFiles {
				b.Fatal(err)
			}
		}
	})
	b.Run("tree/git-ls-tree", func(b *testing.B) {
		var cpu time.Duration
		for b.Loop() {
			cmd := exec.Command("git", "ls-tree", "-r", "HEAD")
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil || string(out) != wantTree {
				b.Fatal(err)
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		b.ReportMetric(float64(cpu)/float64(b.N), "git-cpu-ns/op")
	})
}

// BenchmarkLoad is the load of git.wasm from a warm compilation cache: a
// new runtime, the cached compiled module, an instance, describe.
// The files guest, the same size of Go module, is loaded beside it for
// scale.
func BenchmarkLoad(b *testing.B) {
	for _, g := range []string{"git", "files"} {
		b.Run(g, func(b *testing.B) { benchLoad(b, g) })
	}
}

func benchLoad(b *testing.B, guest string) {
	ctx := b.Context()
	wasm := testguest.Go(b, "guests/"+guest)
	dir := b.TempDir()
	load := func() {
		rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(testguest.CompileCache()))
		require.NoError(b, err)
		p, err := rt.LoadFile(ctx, wasm, runtime.NewProviderConfig().WithPoolSize(1).WithCompileTimeout(10*time.Minute).
			WithGrants(runtime.Grants{Dirs: []runtime.DirGrant{{HostPath: dir}}}))
		require.NoError(b, err)
		require.NotEmpty(b, p.Describe().Name)
		require.NoError(b, rt.Close(ctx))
	}
	load() // fills the cache
	for b.Loop() {
		load()
	}
}

// reportCPU, deferred with its result called, reports this process's CPU
// time per operation as cpu-ns/op.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
