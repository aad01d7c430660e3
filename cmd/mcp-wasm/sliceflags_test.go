package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
)

// repeatableFlags lists every repeatable flag of every command of the app:
// command name -> flag names.
func repeatableFlags(app *cli.App) map[string][]string {
	out := map[string][]string{}
	for _, cmd := range app.Commands {
		for _, f := range cmd.Flags {
			if _, ok := f.(*cli.StringSliceFlag); ok {
				out[cmd.Name] = append(out[cmd.Name], f.Names()[0])
				continue
			}
			// Any other slice-valued flag type would split too: refuse it.
			if strings.Contains(reflect.TypeOf(f).String(), "Slice") {
				out[cmd.Name] = append(out[cmd.Name], "UNSUPPORTED:"+f.Names()[0])
			}
		}
		sort.Strings(out[cmd.Name])
	}
	return out
}

// TestRepeatableFlags_TakeValuesWhole: every repeatable flag of every
// command takes each value exactly as written: commas, '=' and surrounding
// spaces included. urfave/cli splits slice flags at ',' unless told not to;
// a grant is exactly what the operator wrote.
func TestRepeatableFlags_TakeValuesWhole(t *testing.T) {
	flags := repeatableFlags(newApp(nil, nil, nil))
	// The audit: the repeatable flags this test covers. A new one joins
	// the list (and is checked below without more code).
	policy := []string{"signature-identity", "signature-identity-regexp", "signature-key"}
	limits := sorted(append([]string{"allow-dir", "allow-http", "config-env", "config-value", "insecure-registry", "secret-env"}, policy...))
	require.Equal(t, map[string][]string{
		"inspect":  limits,
		"check":    limits,
		"compile":  limits,
		"call":     sorted(append([]string{"arg", "path"}, limits...)),
		"serve":    sorted(append([]string{"allow", "allowed-host", "allowed-origin", "module", "oauth-scope", "trusted-proxy"}, limits...)),
		"validate": {"allow", "insecure-registry"},
		"lock":     {"insecure-registry"},
		"push":     {"annotation", "insecure-registry"},
		"pull":     sorted(append([]string{"insecure-registry"}, policy...)),
	}, flags)

	values := []string{"/a,/b", " mode=a,extra=b ", "GET,POST=https://api.example.com/v1/", "x,", ","}
	n := 0
	for cmdName, names := range flags {
		for _, name := range names {
			t.Run(cmdName+"/"+name, func(t *testing.T) {
				var got []string
				app := newApp(nil, &bytes.Buffer{}, &bytes.Buffer{})
				for _, c := range app.Commands {
					c.Action = func(c *cli.Context) error { got = c.StringSlice(name); return nil }
				}
				args := []string{"mcp-wasm", cmdName}
				for _, v := range values {
					args = append(args, "--"+name, v)
				}
				require.NoError(t, app.RunContext(context.Background(), args))
				require.Equal(t, values, got)
			})
			n++
		}
	}
	require.GreaterOrEqual(t, n, 17, "the audit found fewer repeatable flags than exist")
}

func sorted(s []string) []string { sort.Strings(s); return s }

// TestAllowDir_CommaInPath: a directory whose name holds a comma is one
// grant, served by the files provider; "/x,/y" is one path, not two grants.
func TestAllowDir_CommaInPath(t *testing.T) {
	files := testguest.Go(t, "guests/files")
	root := t.TempDir()
	dir := filepath.Join(root, "notes,old")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644))

	code, out, errOut := runCLI(t, "call", "--allow-dir", dir, files, "list")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, uriIn(t, dir, "a.txt"))

	// Two directories that exist, joined by a comma: one grant of a path
	// that does not exist, never two grants.
	for _, d := range []string{"x", "y"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	joined := filepath.Join(root, "x") + "," + filepath.Join(root, "y")
	code, out, errOut = runCLI(t, "inspect", "--allow-dir", joined, testkit.Fixture("wat", "minimal.wasm"))
	require.Equal(t, 1, code, out+errOut)
	require.Contains(t, out, joined)
	require.Equal(t, 1, strings.Count(out, "-> "+joined+" (read-only)"), "one grant: %s", out)
	require.Contains(t, out, "not mounted: ", "a path that does not exist is not mounted")
}

// TestConfigValue_CommaInValue: "--config-value mode=a,extra=b" grants one
// key whose value holds a comma; docs/grants.md's "paths=users,status" works.
func TestConfigValue_CommaInValue(t *testing.T) {
	code, out, errOut := runCLI(t, "inspect", "--config-value", "mode=a,extra=b", "--config-value", "paths=users,status",
		testkit.Fixture("wat", "minimal.wasm"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `mode = "a,extra=b"`)
	require.Contains(t, out, `paths = "users,status"`)
	require.NotContains(t, out, "extra =")
	require.NotContains(t, out, `"status"`)
}

// TestAllowHTTP_MethodList: the documented METHODS=PREFIX form, whose
// method list has its own commas, grants those methods on that prefix.
func TestAllowHTTP_MethodList(t *testing.T) {
	code, out, errOut := runCLI(t, "inspect", "--allow-http", "GET,POST=http://127.0.0.1/", httpProbe())
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "-> GET,POST http://127.0.0.1/")
}
