//go:build !wasip1

package sqliteprov

// Preopens returns no directories outside a WASI guest: natively, give New
// the directories (tests do).
func Preopens() []string { return nil }
