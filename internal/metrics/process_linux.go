package metrics

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// userHZ is the unit of the times in /proc/self/stat: USER_HZ, 100 on
// every Linux architecture Go supports (the kernel scales to it for
// userspace whatever its own tick is).
const userHZ = 100

// registerProcess registers the process_ families on r, read from
// /proc/self at scrape time. A family whose file cannot be read emits no
// sample for that scrape.
func registerProcess(r *Registry) {
	r.CounterFunc("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", func(emit func(float64, ...string)) {
		if f, ok := procStat(); ok {
			emit(float64(f.utime+f.stime) / userHZ)
		}
	})
	r.GaugeFunc("process_open_fds", "Number of open file descriptors.", func(emit func(float64, ...string)) {
		if d, err := os.ReadDir("/proc/self/fd"); err == nil {
			emit(float64(len(d)))
		}
	})
	r.GaugeFunc("process_max_fds", "Maximum number of open file descriptors.", func(emit func(float64, ...string)) {
		var l syscall.Rlimit
		if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil {
			emit(float64(l.Cur))
		}
	})
	r.GaugeFunc("process_virtual_memory_bytes", "Virtual memory size in bytes.", func(emit func(float64, ...string)) {
		if f, ok := procStat(); ok {
			emit(float64(f.vsize))
		}
	})
	r.GaugeFunc("process_resident_memory_bytes", "Resident memory size in bytes.", func(emit func(float64, ...string)) {
		if f, ok := procStat(); ok {
			emit(float64(f.rss * uint64(os.Getpagesize())))
		}
	})
	start, haveStart := startTime()
	r.GaugeFunc("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", func(emit func(float64, ...string)) {
		if haveStart {
			emit(start)
		}
	})
}

// statFields are the fields of /proc/self/stat the families read.
type statFields struct {
	utime, stime, starttime, vsize, rss uint64
}

// procStat reads /proc/self/stat (proc(5)).
func procStat() (statFields, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return statFields{}, false
	}
	return parseStat(b)
}

// parseStat reads the fields after the command name, which is in
// parentheses and may itself hold spaces and parentheses.
func parseStat(b []byte) (statFields, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return statFields{}, false
	}
	// fields[0] is field 3 (state) of proc(5).
	fields := strings.Fields(string(b[i+1:]))
	at := func(n int) uint64 { // n: proc(5)'s 1-based field number
		if n-3 >= len(fields) {
			return 0
		}
		v, _ := strconv.ParseUint(fields[n-3], 10, 64)
		return v
	}
	if len(fields) < 22 {
		return statFields{}, false
	}
	return statFields{utime: at(14), stime: at(15), starttime: at(22), vsize: at(23), rss: at(24)}, true
}

// startTime is the process's start as a Unix time: the boot time of
// /proc/stat plus the start of /proc/self/stat, in USER_HZ ticks.
func startTime() (float64, bool) {
	f, ok := procStat()
	if !ok {
		return 0, false
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			boot, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, false
			}
			return float64(boot) + float64(f.starttime)/userHZ, true
		}
	}
	return 0, false
}
