// Package errs holds the runtime's error sentinels that its capability
// packages wrap: package runtime exports the same values (runtime.ErrConfig
// is errs.ErrConfig), so errors.Is holds across the seam. It holds nothing else.
package errs

import "errors"

var (
	// ErrCompile: see runtime.ErrCompile.
	ErrCompile = errors.New("compile failed")
	// ErrConfig: see runtime.ErrConfig.
	ErrConfig = errors.New("invalid configuration")
)
