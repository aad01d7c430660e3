package gctune

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestApply runs in child processes, since the settings are process-wide:
// the defaults apply, and the environment wins.
func TestApply(t *testing.T) {
	if os.Getenv("GCTUNE_CHILD") != "" {
		p, l := Apply()
		os.Stdout.WriteString(strconv.Itoa(p) + " " + strconv.FormatInt(l, 10) + "\n")
		return
	}
	run := func(env ...string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestApply$")
		cmd.Env = append(os.Environ(), append(env, "GCTUNE_CHILD=1")...)
		out, err := cmd.Output()
		require.NoError(t, err)
		line, _, _ := strings.Cut(string(out), "\n")
		return line
	}
	require.Equal(t, "400 1073741824", run("GOGC=", "GOMEMLIMIT="))
	require.Equal(t, "50 1073741824", run("GOGC=50", "GOMEMLIMIT="))
	require.Equal(t, "400 2097152", run("GOGC=", "GOMEMLIMIT=2MiB"))
}
