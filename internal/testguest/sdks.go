package testguest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Rust and AssemblyScript builders: like C, a missing toolchain skips
// the test with the install command, and fails it under CI.

func skipOrFail(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatal(msg + " (CI is set, so this is a failure)")
	}
	tb.Skip(msg)
}

// RustToolchain is a cargo and rustc pair that can build for a WASI
// preview 1 target.
type RustToolchain struct {
	Cargo, Rustc string
	Target       string // "wasm32-wasip1" (Rust 1.78 and later) or "wasm32-wasi"
	Version      string // rustc --version
}

// FindRust looks for a Rust toolchain with the wasm32-wasip1 or wasm32-wasi
// standard library installed: Debian's in /usr/bin first (rustup's proxies,
// which usually come first on PATH, often lack the target), then the cargo
// on PATH.
func FindRust() (RustToolchain, error) {
	dirs := []string{"/usr/bin"}
	if p, err := exec.LookPath("cargo"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, d := range dirs {
		tc := RustToolchain{Cargo: filepath.Join(d, "cargo"), Rustc: filepath.Join(d, "rustc")}
		if _, err := os.Stat(tc.Cargo); err != nil {
			continue
		}
		sysroot, err := exec.Command(tc.Rustc, "--print", "sysroot").Output()
		if err != nil {
			continue
		}
		for _, target := range []string{"wasm32-wasip1", "wasm32-wasi"} {
			if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(sysroot)), "lib", "rustlib", target)); err == nil {
				v, _ := exec.Command(tc.Rustc, "--version").Output()
				tc.Target, tc.Version = target, strings.TrimSpace(string(v))
				return tc, nil
			}
		}
	}
	return RustToolchain{}, fmt.Errorf("no Rust toolchain with the wasm32-wasi or wasm32-wasip1 target")
}

// RequireRust skips the test (or fails it under CI) without a Rust
// toolchain that builds WASI preview 1 modules, and returns the toolchain.
func RequireRust(tb testing.TB) RustToolchain {
	tb.Helper()
	tc, err := FindRust()
	if err != nil {
		skipOrFail(tb, "Rust guest tests SKIPPED: "+err.Error()+"; install with: apt-get install -y rustc cargo libstd-rust-dev-wasm32 (or rustup target add wasm32-wasip1)")
	}
	return tc
}

// RustEnv is the environment cargo runs in for tc: its own rustc first on
// PATH, offline (the SDK has no dependencies).
func RustEnv(tc RustToolchain, targetDir string) []string {
	return append(os.Environ(),
		"PATH="+filepath.Dir(tc.Cargo)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"RUSTC="+tc.Rustc, "CARGO_TARGET_DIR="+targetDir, "CARGO_NET_OFFLINE=true")
}

// Rust builds the cdylib crate at dir (relative to the repository root)
// whose library is named lib, against the Rust SDK in guests/rust, and
// returns the .wasm path.
func Rust(tb testing.TB, dir, lib string) string {
	tb.Helper()
	tc := RequireRust(tb)
	mu.Lock()
	defer mu.Unlock()
	root := Root()
	key := hashTree(tb, "rust:"+dir+tc.Version+tc.Target, []string{filepath.Join(root, "guests", "rust", "src"), filepath.Join(root, dir)}, ".rs", ".toml", ".lock")
	out := filepath.Join(cacheDir(tb), strings.ReplaceAll(dir, "/", "_")+"-"+key+".wasm")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	targetDir := filepath.Join(cacheDir(tb), "cargo")
	cmd := exec.Command(tc.Cargo, "build", "--offline", "--release", "--target", tc.Target)
	cmd.Dir = filepath.Join(root, dir)
	cmd.Env = RustEnv(tc, targetDir)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build Rust guest %s: %v\n%s", dir, err, b)
	}
	built, err := os.ReadFile(filepath.Join(targetDir, tc.Target, "release", lib+".wasm"))
	if err != nil {
		tb.Fatal(err)
	}
	tmp := tempOut(tb, out)
	if err := os.WriteFile(tmp, built, 0o644); err != nil {
		tb.Fatal(err)
	}
	publish(tb, tmp, out)
	return out
}

// AscFlags are the flags every AssemblyScript guest is built with; the
// Makefile uses the same. --exportStart makes the top-level code the
// reactor initializer instead of a start section.
var AscFlags = []string{"--exportStart", "_initialize", "-O3", "--shrinkLevel", "1"}

// ASC returns the AssemblyScript compiler's script, installed by `npm ci`
// in guests/assemblyscript (.ci/run links it from its cache).
func ASC() string {
	return filepath.Join(Root(), "guests", "assemblyscript", "node_modules", "assemblyscript", "bin", "asc.js")
}

// RequireAssemblyScript skips the test (or fails it under CI) without node
// and the pinned AssemblyScript compiler.
func RequireAssemblyScript(tb testing.TB) {
	tb.Helper()
	_, errNode := exec.LookPath("node")
	_, errAsc := os.Stat(ASC())
	if errNode != nil || errAsc != nil {
		skipOrFail(tb, "AssemblyScript guest tests SKIPPED: node or the AssemblyScript compiler not found; install Node.js 20 or later, then: (cd guests/assemblyscript && npm ci)")
	}
}

// AssemblyScript builds the AssemblyScript guest whose entry file is entry
// (relative to the repository root) and returns the .wasm path.
func AssemblyScript(tb testing.TB, entry string) string {
	tb.Helper()
	RequireAssemblyScript(tb)
	mu.Lock()
	defer mu.Unlock()
	root := Root()
	lock, err := os.ReadFile(filepath.Join(root, "guests", "assemblyscript", "package-lock.json"))
	if err != nil {
		tb.Fatal(err)
	}
	salt := "as:" + entry + strings.Join(AscFlags, " ") + string(lock)
	key := hashTree(tb, salt, []string{filepath.Join(root, "guests", "assemblyscript", "assembly"), filepath.Join(root, filepath.Dir(entry))}, ".ts")
	out := filepath.Join(cacheDir(tb), strings.ReplaceAll(filepath.Dir(entry), "/", "_")+"-"+key+".wasm")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	tmp := tempOut(tb, out)
	args := append([]string{ASC(), filepath.Join(root, entry), "-o", tmp}, AscFlags...)
	cmd := exec.Command("node", args...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		tb.Fatalf("build AssemblyScript guest %s: %v\n%s", entry, err, b)
	}
	publish(tb, tmp, out)
	return out
}

// Binary builds the mcp-wasm command and returns its path, cached like the
// guests (keyed by every source it is built from).
func Binary(tb testing.TB) string {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	root := Root()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		tb.Fatal(err)
	}
	// Every package the binary links and every file it embeds: the SDKs
	// and templates `mcp-wasm new` writes, the default provider.
	var dirs []string
	for _, d := range []string{"go.mod", "sdkfs.go", "abi", "cmd", "config", "internal", "runtime", "served", "server",
		"guests/go", "guests/c", "guests/rust/Cargo.toml", "guests/rust/src", "guests/assemblyscript/package.json",
		"guests/assemblyscript/index.ts", "guests/assemblyscript/assembly"} {
		dirs = append(dirs, filepath.Join(root, d))
	}
	key := hashTree(tb, "bin:"+string(sum), dirs, ".go", ".wasm", ".json", ".c", ".h", ".rs", ".ts", ".toml", ".tmpl", ".go-version", ".clang-version")
	out := filepath.Join(cacheDir(tb), "mcp-wasm-"+key)
	if _, err := os.Stat(out); err == nil {
		return out
	}
	tmp := tempOut(tb, out)
	cmd := exec.Command("go", "build", "-o", tmp, "./cmd/mcp-wasm")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		tb.Fatalf("build mcp-wasm: %v\n%s", err, b)
	}
	publish(tb, tmp, out)
	return out
}
