package rootfs

import (
	"sync/atomic"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// maxOpenFiles is the most files and directories one instance may hold
// open in its granted directories at once (its preopens included). Each is
// a host descriptor, kept across calls while the instance is pooled:
// without a cap a guest opening "." in a loop took all 20,000 of the host
// process's descriptors in a quarter of a second, and with them the
// server's ability to accept a connection or open a module.
const maxOpenFiles = 256

// OpenFiles counts the files an instance's mounts hold open.
type OpenFiles struct{ n atomic.Int32 }

// acquire counts one more open file, or fails at the cap with EAGAIN, the
// errno of a resource limit (as fork's process limit): wazero's errno set
// has no EMFILE.
func (o *OpenFiles) acquire() experimentalsys.Errno {
	if o == nil {
		return 0
	}
	if o.n.Add(1) > maxOpenFiles {
		o.n.Add(-1)
		return experimentalsys.EAGAIN
	}
	return 0
}

func (o *OpenFiles) release() {
	if o != nil {
		o.n.Add(-1)
	}
}
