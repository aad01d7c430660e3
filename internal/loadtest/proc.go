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
func PeakRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read peak rss: %w (Linux /proc only)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("read peak rss: unexpected VmHWM line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read peak rss: %w", err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read peak rss: %w", err)
	}
	return 0, fmt.Errorf("read peak rss: no VmHWM in /proc/%d/status", pid)
}
