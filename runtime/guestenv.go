package runtime

import "strconv"

// goMemLimitEnv is the one environment variable a guest is given. Go's
// runtime reads it at start (wasip1 included) as its soft memory limit,
// so a Go guest's collector works harder as the heap nears the linear
// memory limit instead of growing into it and trapping. Other languages
// ignore it. It tells the guest its own memory limit, which is not a
// secret; nothing of the host's environment is passed, ever.
const goMemLimitEnv = "GOMEMLIMIT"

// goMemLimit is three quarters of the linear memory limit, in bytes: the
// rest is for what Go's limit does not count (the module's data, the
// unused ends of spans) and what it only approaches.
func goMemLimit(memoryLimit uint64) string {
	return strconv.FormatUint(memoryLimit/4*3, 10)
}
