package loadtest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the peak resident set size (VmHWM in /proc/PID/status)
// of a process, in bytes. It works on Linux only.
func PeakRSS(pid int) (int64, error) { return statusKB(pid, "VmHWM") }

// RSS returns the resident set size (VmRSS) of a process now, in bytes.
// It works on Linux only.
func RSS(pid int) (int64, error) { return statusKB(pid, "VmRSS") }

// statusKB reads a "KEY: N kB" line of /proc/PID/status, in bytes.
func statusKB(pid int, key string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read %s: %w (Linux /proc only)", key, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key+":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("read %s: unexpected line %q", key, sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", key, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", key, err)
	}
	return 0, fmt.Errorf("read %s: not in /proc/%d/status", key, pid)
}
