package testlog

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBufferConcurrent: writers on many goroutines and a reader lose
// nothing (run under -race, as make check does).
func TestBufferConcurrent(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = b.Write([]byte("x"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	require.Equal(t, strings.Repeat("x", 800), b.String())
}
