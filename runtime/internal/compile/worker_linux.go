package compile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
)

// limitWorker puts the worker under its limits before it reads the module:
// RLIMIT_CPU (then SIGKILL one second later: Go ignores SIGXCPU), a Go
// memory limit that makes the collector work before the watchdog fires, a
// watchdog on the resident set, and RLIMIT_AS as the backstop for what the
// watchdog cannot see in time (a single huge mapping). The address-space
// limit is loose, four times the memory limit above what the process has
// mapped at start, because a Go process maps far more than it touches.
func limitWorker(job workerJob) error {
	if job.Memory == 0 || job.CPUSeconds == 0 {
		return errors.New("no limits in the job")
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: job.CPUSeconds, Max: job.CPUSeconds + 1}); err != nil {
		return fmt.Errorf("set RLIMIT_CPU: %w", err)
	}
	vm, err := selfStatm(0)
	if err != nil {
		return err
	}
	as := vm + 4*job.Memory
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: as, Max: as}); err != nil {
		return fmt.Errorf("set RLIMIT_AS: %w", err)
	}
	debug.SetMemoryLimit(int64(job.Memory / 4 * 3))
	go watchRSS(job.Memory)
	return nil
}

// watchRSS ends the worker when its resident set exceeds limit.
func watchRSS(limit uint64) {
	for {
		if rss, err := selfStatm(1); err == nil && rss > limit {
			fmt.Fprintf(os.Stderr, "compile worker: resident memory %d MiB, over the limit of %d MiB\n", rss>>20, limit>>20)
			os.Exit(exitMemory)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// selfStatm reads field i of /proc/self/statm (0: size, 1: resident), in bytes.
func selfStatm(i int) (uint64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) <= i {
		return 0, errors.New("short /proc/self/statm")
	}
	n, err := strconv.ParseUint(f[i], 10, 64)
	return n * uint64(os.Getpagesize()), err
}

// RunWorker compiles wasm in a worker, under lim, into wazero's cache
// directory dir. It returns ErrNoWorker when this process cannot start one.
func RunWorker(ctx context.Context, wasm []byte, dir string, lim Limits) error {
	if !hookInstalled.Load() {
		return ErrNoWorker
	}
	exe, err := os.Executable()
	if err != nil {
		return ErrNoWorker
	}
	job, err := json.Marshal(workerJob{Dir: dir, Pages: lim.Pages, CloseOnDone: lim.CloseOnDone,
		Memory: lim.Memory, CPUSeconds: cpuSeconds(lim)})
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe)
	cmd.Env = []string{workerEnv + "=" + workerMagic}
	cmd.Stdin = io.MultiReader(bytes.NewReader(append(job, '\n')), bytes.NewReader(wasm))
	var tail stderrTail
	cmd.Stderr = &tail
	cmd.WaitDelay = time.Second
	workersStarted.Add(1)
	err = cmd.Run()
	if err == nil && bytes.Contains(tail.b, []byte(workerDone)) {
		return nil
	}
	st := workerStatus{timedOut: cctx.Err() != nil, desc: "exit status unknown"}
	if ps := cmd.ProcessState; ps != nil {
		ws, _ := ps.Sys().(syscall.WaitStatus)
		st.code, st.desc = ps.ExitCode(), ps.String()
		st.cpu = ws.Signaled() && ps.UserTime()+ps.SystemTime() >= time.Duration(cpuSeconds(lim))*time.Second
	}
	if err == nil { // exit 0 without the worker's word: not a worker
		return fmt.Errorf("%w: %s did not act as a compile worker: call runtime.CompileWorkerMain first in main", errs.ErrCompile, exe)
	}
	return workerFailure(lim, st, tail.b)
}
