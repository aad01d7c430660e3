//go:build !(linux || darwin)

package rootfs

import (
	"errors"
	"io"
	"os"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// next returns up to n entries (n <= 0: all that are left) through
// os.File.ReadDir.
func (d *direntReader) next(hf hostFile, n int) ([]experimentalsys.Dirent, error) {
	f, ok := hf.(*os.File) // no other kind of hostFile here
	if !ok {
		return nil, experimentalsys.ENOTDIR
	}
	for !d.eof && (n <= 0 || len(d.pending) < n) {
		entries, err := f.ReadDir(256)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(entries) == 0 {
			d.eof = true
		}
		for _, e := range entries {
			d.pending = append(d.pending, experimentalsys.Dirent{Name: e.Name(), Type: e.Type()})
		}
	}
	return d.take(n), nil
}
