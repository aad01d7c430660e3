// Package compile is how the runtime compiles untrusted modules: in a
// child process under memory, CPU and time limits (the compile worker),
// into a private directory of wazero's file cache, beside the marks of
// modules that compiled within their limits, the rewrite cache, and, for a
// baked image, the manifest that lets a read-only cache directory be used.
// The root passes down the cache directory and a provider's Limits; it
// imports nothing of the root.
package compile

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/textsafe"
)

// Limits are what the root passes down of a provider's configuration:
// everything the worker's limits, the compiled marks and wazero's cache
// key depend on.
type Limits struct {
	Pages       uint32        // the guest's memory limit, in pages
	CloseOnDone bool          // wazero's CloseOnContextDone (its own deadline check)
	Memory      uint64        // bytes of resident memory the worker may use
	Timeout     time.Duration // the compile timeout
}

// Compilation of untrusted modules happens in a child process, the compile
// worker: the same executable, started again with workerEnv set, which
// compiles the module under an address-space limit, a CPU-time limit and a
// watchdog on its resident memory, into the runtime's private directory of
// wazero's file compilation cache (wazero writes each entry to a temporary
// file and renames it: a worker killed midway leaves no partial entry).
// The parent then compiles the same bytes, which wazero loads from the
// cache instead of compiling. Whatever the module makes the compiler do, the
// worker is the process that runs out of memory, CPU or time, and dies; the
// parent sees an exit status. See RATIONALE.md ("Why compile untrusted
// modules in a child process?").

// workerEnv is set, to workerMagic, in the environment of a compile worker.
const (
	workerEnv   = "MCP_WASM_COMPILE_WORKER"
	workerMagic = "v1"
	workerDone  = "mcp-wasm compile worker v1: done\n"
)

// Exit statuses of a compile worker besides 0.
const (
	exitInvalid = 3 // wazero refused the module: the reason is on stderr
	exitMemory  = 4 // the watchdog saw the resident memory over the limit
	exitSetup   = 5 // the worker could not set itself up
)

// hookInstalled records that CompileWorkerMain ran in this process, so that
// re-executing it makes a worker and not a second copy of the program.
var hookInstalled atomic.Bool

// workersStarted counts the compile workers this process started.
var workersStarted atomic.Int64

// WorkersStarted is the number of compile workers this process started.
func WorkersStarted() int64 { return workersStarted.Load() }

// WorkerMain makes this process a compile worker when it was started
// as one, and then exits; otherwise it returns at once. Call it first in
// main, and in TestMain of tests that load modules, before anything else
// reads stdin (runtime.CompileWorkerMain is this). Without it, RunWorker
// returns ErrNoWorker.
func WorkerMain() {
	if os.Getenv(workerEnv) != workerMagic {
		hookInstalled.Store(true)
		return
	}
	os.Exit(workerMain(os.Stdin, os.Stderr))
}

// workerJob is what the parent tells the worker, as the first line of its
// stdin; the module's bytes follow.
type workerJob struct {
	Dir         string `json:"dir"`         // wazero's file cache directory
	Pages       uint32 `json:"pages"`       // memory limit, in pages, as the parent's runtime
	CloseOnDone bool   `json:"closeOnDone"` // as the parent's runtime (changes the cache key)
	Memory      uint64 `json:"memory"`      // bytes of resident memory the worker may use
	CPUSeconds  uint64 `json:"cpuSeconds"`  // seconds of CPU the worker may use
}

func workerMain(stdin io.Reader, stderr io.Writer) int {
	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	var job workerJob
	if err == nil {
		err = json.Unmarshal(line, &job)
	}
	if err == nil {
		err = limitWorker(job)
	}
	var wasm []byte
	if err == nil {
		wasm, err = io.ReadAll(in)
	}
	if err != nil {
		fmt.Fprintf(stderr, "compile worker: %v\n", err)
		return exitSetup
	}
	ctx := context.Background()
	cache, err := wazero.NewCompilationCacheWithDir(job.Dir)
	if err != nil {
		fmt.Fprintf(stderr, "compile worker: %v\n", err)
		return exitSetup
	}
	wr := wazero.NewRuntimeWithConfig(ctx, RuntimeConfig(cache, job.Pages, job.CloseOnDone))
	if _, err := wr.CompileModule(experimental.WithCompilationWorkers(ctx, 2), wasm); err != nil {
		fmt.Fprintf(stderr, "%s\n", textsafe.FirstLine(err.Error(), 200))
		return exitInvalid
	}
	_ = wr.Close(ctx)
	_ = cache.Close(ctx)
	fmt.Fprint(stderr, workerDone)
	return 0
}

// RuntimeConfig is the configuration of every wazero runtime of the host,
// parent and worker alike: wazero's cache key covers the module's bytes,
// wazero's version, the CPU's features and CloseOnContextDone, and the
// worker must produce what the parent looks up.
func RuntimeConfig(cache wazero.CompilationCache, pages uint32, closeOnDone bool) wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2).
		WithCompilationCache(cache).
		WithMemoryLimitPages(pages).
		WithCloseOnContextDone(closeOnDone)
}

// Marks records, beside wazero's cache, the modules that compiled
// within the limits (in a worker, or trusted): loading one again compiles
// it in-process, where wazero finds it in its cache, and pays no worker.
// A mark's key covers what wazero's key does that can change between runs
// (the bytes, wazero's version, CloseOnContextDone) and the compile limits
// it was checked against, so a tighter limit checks the module again. Like
// the rewrite cache, marks live in the private cache directory, so they
// trust nothing that directory does not already hold; this process also
// remembers them (seen), for runtimes without a cache directory.
type Marks struct{ dir string }

// NewMarks keeps the marks in their directory under the cache directory.
func NewMarks(cacheDir string) Marks {
	return Marks{dir: filepath.Join(cacheDir, "mcp-wasm-compiled-v1")}
}

// seen are the marks of this process, whatever their runtime.
var seen sync.Map // mark name -> struct{}

var wazeroVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tetratelabs/wazero" {
				return d.Version
			}
		}
	}
	return "unknown"
})

func markName(wasm []byte, lim Limits) string {
	h := sha256.New()
	fmt.Fprintf(h, "mcp-wasm compiled v1 wazero %s close %t memory %d cpu %d\n", wazeroVersion(), lim.CloseOnDone, lim.Memory, cpuSeconds(lim))
	h.Write(wasm)
	return hex.EncodeToString(h.Sum(nil))
}

// Has says whether wasm compiled within lim before.
func (c Marks) Has(wasm []byte, lim Limits) bool {
	name := markName(wasm, lim)
	if _, ok := seen.Load(name); ok {
		return true
	}
	_, err := os.Stat(filepath.Join(c.dir, name))
	return err == nil
}

// Mark records that wasm compiled within lim.
func (c Marks) Mark(wasm []byte, lim Limits) error {
	name := markName(wasm, lim)
	seen.Store(name, struct{}{})
	if _, err := os.Stat(filepath.Join(c.dir, name)); err == nil {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.dir, name), nil, 0o600)
}

// stderrTail keeps the last bytes a worker wrote to stderr.
type stderrTail struct{ b []byte }

func (t *stderrTail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 16<<10 {
		t.b = append(t.b[:0], t.b[len(t.b)-8<<10:]...)
	}
	return len(p), nil
}

// workerFailure turns how a worker ended into a load error.
func workerFailure(lim Limits, status workerStatus, tail []byte) error {
	text := textsafe.Sanitize(lastLine(string(tail)), 200)
	switch {
	case status.timedOut:
		return fmt.Errorf("%w: compilation did not finish within %s: raise the compile timeout or shrink the module", errs.ErrCompile, lim.Timeout)
	case status.code == exitInvalid:
		return fmt.Errorf("%w: invalid module: %s", errs.ErrCompile, text)
	case status.code == exitMemory || status.outOfMemory || bytes.Contains(tail, []byte("out of memory")) || bytes.Contains(tail, []byte("cannot allocate memory")):
		return fmt.Errorf("%w: compiling the module needed more than the compile memory limit of %d MiB: shrink the module (split its largest functions) or raise the provider's compile memory limit", errs.ErrCompile, lim.Memory>>20)
	case status.cpu:
		return fmt.Errorf("%w: compiling the module used more than %d s of CPU: shrink the module or raise the compile timeout", errs.ErrCompile, cpuSeconds(lim))
	default:
		return fmt.Errorf("%w: the compile worker failed (%s: %s): check that the host can start its own executable, or report it", errs.ErrCompile, status.desc, text)
	}
}

// workerStatus is how a worker ended.
type workerStatus struct {
	code        int
	desc        string
	timedOut    bool // the parent stopped it: the compile timeout
	cpu         bool // RLIMIT_CPU stopped it
	outOfMemory bool
}

// cpuSeconds is the worker's CPU limit: twice the compile timeout, as it
// compiles two functions at once.
func cpuSeconds(lim Limits) uint64 {
	return 2 * uint64((lim.Timeout+999_999_999)/1_000_000_000)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// ErrNoWorker: this process cannot start a compile worker (WorkerMain did
// not run in it, or not on Linux); the caller compiles in its own process.
var ErrNoWorker = errors.New("no compile worker")
