//go:build !wasip1

package filesprov

// Preopens returns no roots outside a WASI guest: natively, give New the
// roots (tests and benchmarks do).
func Preopens() []Root { return nil }
