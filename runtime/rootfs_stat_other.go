//go:build !linux

package runtime

import (
	"io/fs"
	"os"
)

// statBeneath has no fast path here: os.Root walks to the name.
func statBeneath(int, string, bool) (fs.FileInfo, bool) { return nil, false }

// openBeneath has no fast path here: os.Root walks to the name.
func openBeneath(int, string, int) (*os.File, bool) { return nil, false }
