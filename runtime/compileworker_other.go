//go:build !linux

package runtime

import (
	"context"
	"errors"
)

// Compile workers run on Linux only, where the host can bound a child's
// memory and CPU; elsewhere modules compile in the host's process.
func limitWorker(workerJob) error { return errors.New("compile workers run on Linux only") }

func runWorker(context.Context, []byte, string, ProviderConfig) error { return errNoWorker }
