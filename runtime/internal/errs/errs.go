// Package errs holds the runtime's error sentinels that its capability
// packages wrap: package runtime exports the same values (runtime.ErrConfig
// is errs.Config), so errors.Is holds across the seam. It holds nothing else.
package errs

import "errors"

var (
	// Compile: see runtime.ErrCompile.
	Compile = errors.New("compile failed")
	// Config: see runtime.ErrConfig.
	Config = errors.New("invalid configuration")
)
