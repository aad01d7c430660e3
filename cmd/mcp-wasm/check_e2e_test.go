package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi/checkkit"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

// checkFixture builds the buggy provider of testdata/checkfix with one bug
// (the file's name) and returns its .wasm.
func checkFixture(t *testing.T, bug string) string {
	return testguest.C(t, "checkfix-"+bug, "guests/c/mcpw.c", "cmd/mcp-wasm/testdata/checkfix/"+bug+".c")
}

func checkJSON(t *testing.T, args ...string) (int, *checkkit.Report) {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"check", "--json"}, args...)...)
	var rep checkkit.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), "stdout %q, stderr %q", out, errOut)
	return code, &rep
}

func failedChecks(r *checkkit.Report) []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == checkkit.Fail {
			out = append(out, c.Name)
		}
	}
	return out
}

// TestCheckNamesTheRuleEachBugBreaks runs check on a correct provider and on
// one broken copy of it per bug: the correct one passes every rule, each
// broken one fails the rule its bug breaks, saying why and how to fix it.
func TestCheckNamesTheRuleEachBugBreaks(t *testing.T) {
	code, rep := checkJSON(t, checkFixture(t, "good"))
	require.Equal(t, 0, code, "%+v", rep.Checks)
	require.True(t, rep.Passed)
	for _, c := range rep.Checks {
		require.Equal(t, checkkit.Pass, c.Status, c.Name)
	}
	for _, tc := range []struct {
		bug, rule, why string
	}{
		{"repeat", checkkit.CheckList, `resource "fix:///items/b" was already listed on page 1`},
		{"ghost", checkkit.CheckRead, `read "fix:///items/ghost" (listed)`},
		{"kind", checkkit.CheckNotFound, "answered internal"},
		{"mime", checkkit.CheckContents, `mimeType is "text/plain" but list said "image/png"`},
		{"state", checkkit.CheckFresh, "on a fresh instance the result differs"},
		{"cursor", checkkit.CheckChanges, "the cursor grew at every poll"},
		{"memory", checkkit.CheckLimits, "over half the 64.0 MiB limit"},
		{"endless", checkkit.CheckList, `page 50 still has a nextCursor ("50"): the listing does not end`},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			code, rep := checkJSON(t, "--max-pages", "50", checkFixture(t, tc.bug))
			require.Equal(t, 1, code)
			require.False(t, rep.Passed)
			require.Equal(t, []string{tc.rule}, failedChecks(rep))
			var text strings.Builder
			for _, c := range rep.Checks {
				for _, p := range c.Problems {
					require.NotEmpty(t, p.Fix)
					text.WriteString(p.What + ": " + p.Why + "\n")
				}
			}
			require.Contains(t, text.String(), tc.why)
		})
	}
}

func TestCheckHumanReport(t *testing.T) {
	code, out, _ := runCLI(t, "check", checkFixture(t, "ghost"))
	require.Equal(t, 1, code)
	require.Contains(t, out, "checking fix 1.0.0")
	require.Contains(t, out, "  FAIL read       every listed URI reads\n")
	require.Contains(t, out, "         fix: every listed resource must read")
	require.Contains(t, out, "FAIL: 1 of 10 checks failed\n")

	code, out, _ = runCLI(t, "check", testguest.C(t, "catalog-c", "guests/c/mcpw.c", "guests/catalog/c/catalog.c"))
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "PASS: 10 checks, 0 skipped\n")
}

func TestCheckRefusals(t *testing.T) {
	notWasm := filepath.Join(t.TempDir(), "x.wasm")
	require.NoError(t, os.WriteFile(notWasm, []byte("not wasm"), 0o600))
	code, rep := checkJSON(t, notWasm)
	require.Equal(t, 1, code)
	require.Equal(t, []string{checkkit.CheckLoad}, failedChecks(rep))

	code, _, errOut := runCLI(t, "check")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "check takes one MODULE.wasm")
	code, _, errOut = runCLI(t, "check", notWasm, "--json")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "comes after the arguments")
}

// TestCheckExampleProviders runs the real binary's check on the example
// providers with the grants each needs.
func TestCheckExampleProviders(t *testing.T) {
	bin := testguest.Binary(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("# a\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"b":1}`), 0o600))
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/users":
			_, _ = io.WriteString(w, `[{"id":1}]`)
		case "/v1/status":
			_, _ = io.WriteString(w, `{"ok":true}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer api.Close()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"cdocs", []string{testguest.C(t, "cdocs", "guests/c/mcpw.c", "guests/cdocs/cdocs.c")}},
		{"notes", []string{testguest.Go(t, "guests/notes")}},
		{"files", []string{"--allow-dir", dir, testguest.Go(t, "guests/files")}},
		{"httpjson", []string{"--config-value", "base_url=" + api.URL + "/v1/", "--config-value", "paths=users,status",
			"--allow-http", api.URL + "/v1/", "--allow-private-network", testguest.Go(t, "guests/httpjson")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"check", "--cache-dir", filepath.Join(t.TempDir(), "cache")}, tc.args...)...)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), "PASS: 10 checks")
		})
	}
}
