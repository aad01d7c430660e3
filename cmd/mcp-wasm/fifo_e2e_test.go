package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// TestE2E_filesThatAreNotFiles: every file the operator names (a module,
// the signature bundle beside it, a config file, a token file, a TLS
// certificate, a public key, a trusted root) that is a FIFO is refused at
// once, with an error naming it. Before, open(2) of the FIFO waited for a
// writer, in the kernel, and the process hung, deaf to SIGTERM. The real
// binary runs each, so that such a hang is killed at the outer bound and
// fails the test.
func TestE2E_filesThatAreNotFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, syscall.Mkfifo(p, 0o600))
		return p
	}
	good, err := os.ReadFile(filepath.Join(testguest.Root(), "testdata", "hostile", "good.wasm"))
	require.NoError(t, err)
	signed := filepath.Join(dir, "signed.wasm")
	require.NoError(t, os.WriteFile(signed, good, 0o644))
	bundle := fifo("signed.wasm.sigstore.json")
	module, conf, tokens, cert, key, trust := fifo("module.wasm"), fifo("mcp-wasm.json"), fifo("tokens"), fifo("cert.pem"), fifo("cosign.pub"), fifo("trusted_root.json")
	keyPEM := filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(keyPEM, []byte("not read"), 0o600))

	for name, tc := range map[string]struct {
		args []string
		path string
	}{
		"module":          {[]string{"serve", "--module", module}, module},
		"module, call":    {[]string{"call", module, "describe"}, module},
		"bundle":          {[]string{"serve", "--module", signed}, bundle},
		"config":          {[]string{"serve", "--config", conf}, conf},
		"config, check":   {[]string{"validate", "--config", conf}, conf},
		"token file":      {[]string{"serve", "--http", "127.0.0.1:0", "--auth-token-file", tokens}, tokens},
		"TLS certificate": {[]string{"serve", "--http", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", keyPEM}, cert},
		"signature key":   {[]string{"serve", "--module", signed, "--signature-key", key}, key},
		"trusted root":    {[]string{"serve", "--module", signed, "--trusted-root", trust, "--signature-identity", "me@example.com", "--signature-issuer", "https://example.com"}, trust},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			args := append(tc.args[:1:1], append([]string{"--cache-dir", testguest.CompileCache(), "--log-level", "warn"}, tc.args[1:]...)...)
			cmd := exec.CommandContext(ctx, binary(t), args...)
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.CombinedOutput()
			require.NoError(t, ctx.Err(), "the command hung opening %s:\n%s", tc.path, out)
			require.Error(t, err, "%s", out)
			require.Contains(t, string(out), tc.path, "the error names the file")
			require.Contains(t, string(out), "not a regular file (a FIFO): give the path of a regular file")
		})
	}
}

// TestPull_privateCacheDir: pull refuses the --cache-dir that call (and
// serve, validate) refuse (one that others may write to, or a symlink), before it
// reaches a registry. Before, it made DIR/modules private and went on.
func TestPull_privateCacheDir(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	require.NoError(t, os.Mkdir(open, 0o700))
	require.NoError(t, os.Chmod(open, 0o777))
	real := filepath.Join(base, "real")
	require.NoError(t, os.Mkdir(real, 0o700))
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(real, link))
	for dir, want := range map[string]string{open: "has mode 777", link: "is not a directory (a symlink?)"} {
		for _, command := range []string{"pull", "call"} {
			args := []string{"mcp-wasm", command, "--cache-dir", dir}
			if command == "pull" {
				args = append(args, "127.0.0.1:1/mcp/none:v1")
			} else {
				args = append(args, filepath.Join(testguest.Root(), "testdata", "hostile", "good.wasm"), "describe")
			}
			var out, errb strings.Builder
			code := run(t.Context(), args, strings.NewReader(""), &out, &errb)
			require.NotZero(t, code, command)
			require.Contains(t, errb.String(), want, "%s: %s", command, errb.String())
		}
	}
}
