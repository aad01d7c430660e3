//go:build !linux

package rootfs

import "io/fs"

// statBeneath has no fast path here: os.Root walks to the name.
func statBeneath(int, string, bool) (fs.FileInfo, bool) { return nil, false }

// openBeneath has no fast path here: os.Root walks to the name.
func openBeneath(int, string, int) (hostFile, bool) { return nil, false }

// statIn has no fast path here: os.Root stats the name.
func statIn(int, string) (fs.FileInfo, bool) { return nil, false }

// parentDir holds nothing here: every lookup goes through os.Root.
type parentDir struct{}

func (*parentDir) stat(int, string, string) (fs.FileInfo, bool) { return nil, false }
func (*parentDir) close()                                       {}
