package runtime_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runPeakRSS runs cmd to its end and returns its exit status and peak
// resident set size (VmHWM), read at the moment it exits.
//
// wait4's ru_maxrss cannot be used: Go starts children with vfork, so a
// child's maxrss includes its parent's resident set at the fork. VmHWM
// belongs to the address space exec gave the child. The child runs under
// ptrace with PTRACE_O_TRACEEXIT so that it stops just before it exits,
// when VmHWM is final, and is killed if the test process dies.
func runPeakRSS(cmd *exec.Cmd, timeout time.Duration) (status syscall.WaitStatus, peak int64, err error) {
	goruntime.LockOSThread() // ptrace requests must come from the tracing thread
	defer goruntime.UnlockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	pid := cmd.Process.Pid
	kill := time.AfterFunc(timeout, func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	defer kill.Stop()
	if _, err := syscall.Wait4(pid, &status, 0, nil); err != nil { // the stop at exec
		return 0, 0, err
	}
	const exitKill = 0x100000 // PTRACE_O_EXITKILL
	if err := syscall.PtraceSetOptions(pid, syscall.PTRACE_O_TRACEEXIT|exitKill); err != nil {
		return 0, 0, err
	}
	sig := 0
	for {
		if err := syscall.PtraceCont(pid, sig); err != nil {
			return 0, 0, err
		}
		if _, err := syscall.Wait4(pid, &status, syscall.WALL, nil); err != nil {
			return 0, 0, err
		}
		switch {
		case status.Exited() || status.Signaled():
			return status, peak, nil
		case status.Stopped() && status.TrapCause() == syscall.PTRACE_EVENT_EXIT:
			peak, sig = vmHWM(pid), 0
		case status.Stopped():
			sig = int(status.StopSignal()) // deliver the child's own signals (Go's preemption uses SIGURG)
		}
	}
}

// vmHWM reads a process's peak resident set size in bytes.
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}
