//go:build !linux

package compile

import (
	"context"
	"errors"
)

// Compile workers run on Linux only, where the host can bound a child's
// memory and CPU; elsewhere modules compile in the host's process.
func limitWorker(workerJob) error { return errors.New("compile workers run on Linux only") }

// RunWorker returns ErrNoWorker: modules compile in the caller's process.
func RunWorker(context.Context, []byte, string, Limits) error { return ErrNoWorker }
