// Package testguest builds real guest modules for tests: Go guests with the
// standard toolchain (GOOS=wasip1, c-shared), C guests with clang and
// wasi-libc, Rust guests with cargo (wasm32-wasi or wasm32-wasip1), and
// AssemblyScript guests with the pinned asc; and the mcp-wasm binary itself.
// Builds are cached under build/testguest, keyed by a hash of the sources,
// so a test run compiles each guest once.
//
// On a machine without clang, Rust or the AssemblyScript compiler, those
// builds skip the test with a message saying what to install; under CI
// (CI=true) they fail instead, so CI cannot pass by skipping.
package testguest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

var mu sync.Mutex

// Root returns the repository root (the directory holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// CompileCache returns the compilation cache directory tests share
// (runtime.Config.WithCacheDir, serve --cache-dir): a cold compile of a
// 4 MB Go guest under -race on a busy 2-core machine takes most of the
// default compile timeout, and one per module per machine is enough.
// Tests of the cache itself use their own directory.
func CompileCache() string {
	return filepath.Join(Root(), "build", "e2e-cache")
}

// hashTree hashes the files with the given suffixes under dirs.
func hashTree(tb testing.TB, salt string, dirs []string, suffixes ...string) string {
	tb.Helper()
	h := sha256.New()
	h.Write([]byte(salt))
	var files []string
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			for _, s := range suffixes {
				if !e.IsDir() && strings.HasSuffix(p, s) {
					files = append(files, p)
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("hash %s: %v", d, err)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatalf("hash %s: %v", f, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func cacheDir(tb testing.TB) string {
	d := filepath.Join(Root(), "build", "testguest")
	if err := os.MkdirAll(d, 0o755); err != nil {
		tb.Fatalf("create %s: %v", d, err)
	}
	return d
}

// Go builds the Go guest package at pkg (a path relative to the repository
// root, e.g. "guests/notes") and returns the .wasm path.
func Go(tb testing.TB, pkg string) string {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	root := Root()
	key := hashTree(tb, "go:"+pkg+runtime.Version(), []string{filepath.Join(root, "guests"), filepath.Join(root, "abi")}, ".go", "go.mod")
	out := filepath.Join(cacheDir(tb), strings.ReplaceAll(pkg, "/", "_")+"-"+key+".wasm")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	tmp := tempOut(tb, out)
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w", "-o", tmp, "./"+pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		tb.Fatalf("build Go guest %s: %v\n%s", pkg, err, b)
	}
	publish(tb, tmp, out)
	return out
}

// tempOut returns a fresh file name beside out for a build to write. The
// in-process mutex does not cover the separate test processes of
// `go test ./...`, so two of them may build the same guest at once: each
// writes its own temporary file and renames it into place atomically.
func tempOut(tb testing.TB, out string) string {
	tb.Helper()
	f, err := os.CreateTemp(filepath.Dir(out), filepath.Base(out)+".*.tmp")
	if err != nil {
		tb.Fatal(err)
	}
	_ = f.Close()
	return f.Name()
}

// publish renames a finished build to its cached name.
func publish(tb testing.TB, tmp, out string) {
	tb.Helper()
	if err := os.Rename(tmp, out); err != nil {
		_ = os.Remove(tmp)
		tb.Fatal(err)
	}
}

// ClangFlags are the flags every C guest is built with; the Makefile uses the same.
var ClangFlags = []string{"--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-mexec-model=reactor", "-Wall", "-Werror", "-Wl,--strip-all"}

// RequireClang skips the test (or fails it under CI) when clang cannot build
// wasm32-wasi reactors here.
func RequireClang(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("clang"); err == nil {
		if _, err := os.Stat("/usr/lib/wasm32-wasi/crt1-reactor.o"); err == nil {
			return
		}
	}
	msg := "C guest tests SKIPPED: clang with wasi-libc not found; install with: apt-get install -y clang lld wasi-libc libclang-rt-14-dev-wasm32"
	if os.Getenv("CI") != "" {
		tb.Fatal(msg + " (CI is set, so this is a failure)")
	}
	tb.Skip(msg)
}

// C builds a C guest from the given sources (relative to the repository
// root) with the C SDK's include directory, and returns the .wasm path.
func C(tb testing.TB, name string, srcs ...string) string {
	tb.Helper()
	RequireClang(tb)
	mu.Lock()
	defer mu.Unlock()
	root := Root()
	dirs := []string{filepath.Join(root, "guests", "c")}
	for _, s := range srcs {
		dirs = append(dirs, filepath.Join(root, filepath.Dir(s)))
	}
	key := hashTree(tb, "c:"+name+strings.Join(srcs, ","), dirs, ".c", ".h")
	out := filepath.Join(cacheDir(tb), name+"-"+key+".wasm")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	tmp := tempOut(tb, out)
	args := append(append([]string{}, ClangFlags...), "-I", filepath.Join(root, "guests", "c"), "-o", tmp)
	for _, s := range srcs {
		args = append(args, filepath.Join(root, s))
	}
	cmd := exec.Command("clang", args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		tb.Fatalf("build C guest %s: %v\n%s", name, err, b)
	}
	publish(tb, tmp, out)
	return out
}
