package compile

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/runtime/internal/errs"
)

// TestMarks: a mark is found again, by this process and (through the
// directory) by the next; its key covers every limit it was checked
// against, so a module marked under one limit compiles in a worker again
// under another.
func TestMarks(t *testing.T) {
	dir := t.TempDir()
	lim := Limits{Pages: 16, Memory: 256 << 20, Timeout: 30 * time.Second}
	wasm := []byte("\x00asm TestMarks " + dir) // unique: the process's marks are shared
	m := NewMarks(dir)
	require.False(t, m.Has(wasm, lim))
	require.NoError(t, m.Mark(wasm, lim))
	require.True(t, m.Has(wasm, lim))
	require.FileExists(t, filepath.Join(dir, "mcp-wasm-compiled-v1", markName(wasm, lim)))

	seen.Delete(markName(wasm, lim)) // a new process: only the directory remembers
	require.True(t, NewMarks(dir).Has(wasm, lim), "the mark on disk is found")
	require.False(t, NewMarks(t.TempDir()).Has(wasm, lim), "another cache dir does not hold it")

	for name, other := range map[string]Limits{
		"less memory":        {Pages: 16, Memory: 128 << 20, Timeout: 30 * time.Second},
		"a shorter timeout":  {Pages: 16, Memory: 256 << 20, Timeout: 10 * time.Second},
		"CloseOnContextDone": {Pages: 16, Memory: 256 << 20, Timeout: 30 * time.Second, CloseOnDone: true},
	} {
		require.False(t, m.Has(wasm, other), "%s: checked again", name)
	}
}

// TestWorkerFailure: each way a worker ends is a compile error that says
// which limit it hit and what to change.
func TestWorkerFailure(t *testing.T) {
	lim := Limits{Memory: 64 << 20, Timeout: 5 * time.Second}
	for _, c := range []struct {
		st   workerStatus
		tail string
		want string
	}{
		{workerStatus{timedOut: true}, "", "did not finish within 5s"},
		{workerStatus{code: exitInvalid}, "junk\ninvalid function body\n", "invalid module: invalid function body"},
		{workerStatus{code: exitMemory}, "", "more than the compile memory limit of 64 MiB"},
		{workerStatus{code: 2}, "fatal error: runtime: out of memory\n", "more than the compile memory limit of 64 MiB"},
		{workerStatus{cpu: true, desc: "signal: killed"}, "", "more than 10 s of CPU"},
		{workerStatus{code: 1, desc: "exit status 1"}, "panic: \x1b[31mboom\n", "the compile worker failed (exit status 1: "},
	} {
		err := workerFailure(lim, c.st, []byte(c.tail))
		require.ErrorIs(t, err, errs.ErrCompile)
		require.Contains(t, err.Error(), c.want)
		require.NotContains(t, err.Error(), "\x1b", "worker output is sanitised")
	}
}
