//go:build !linux

package metrics

// registerProcess registers nothing off Linux: the process_ families read
// /proc/self.
func registerProcess(*Registry) {}
