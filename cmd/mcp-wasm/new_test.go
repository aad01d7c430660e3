package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
)

func TestNewRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--lang", "go"}, 2, "new takes one NAME"},
		{[]string{"x"}, 2, `--lang "": give one of go, c, rust, assemblyscript`},
		{[]string{"--lang", "cobol", "x"}, 2, `--lang "cobol"`},
		{[]string{"--lang", "c", "Hello"}, 2, `NAME "Hello": use 1-40 lower-case letters`},
		{[]string{"--lang", "c", "1st"}, 2, "starting with a letter"},
		{[]string{"--lang", "c", "a_b"}, 2, "lower-case letters"},
		{[]string{"--lang", "c", "a-"}, 2, "not ending with '-'"},
		{[]string{"--lang", "c", "a--b"}, 2, "single '-'"},
		{[]string{"--lang", "c", "../up"}, 2, `NAME "../up"`},
		{[]string{"--lang", "c", "a/b"}, 2, `NAME "a/b"`},
		{[]string{"--lang", "c", strings.Repeat("a", 41)}, 2, "1-40"},
		{[]string{"--lang", "c", "a\x1b[31m"}, 2, `NAME "a\x1b[31m"`},
		{[]string{"--lang", "rust", "mcpw"}, 2, "taken by the SDK"},
		{[]string{"--lang", "c", "--dir", filepath.Join(dir, "missing"), "x"}, 1, "exists and is writable"},
		{[]string{"x", "--lang", "c", "--force"}, 2, "unknown flag --force"},
		{[]string{"x", "--lang"}, 2, "flag --lang needs a value"},
	} {
		code, _, errOut := runNew(append([]string{"new"}, tc.args...)...)
		require.Equal(t, tc.code, code, "%q: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, "%q", tc.args)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "taken"), nil, 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "empty"), 0o700))
	for _, name := range []string{"taken", "empty"} {
		code, _, errOut := runNew("new", "--lang", "c", "--dir", dir, name)
		require.Equal(t, 1, code)
		require.Contains(t, errOut, "it exists already: choose another NAME or --dir")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "a refused new leaves nothing behind")

	code, out, errOut := runNew("new", "ok-1", "--lang=c", "--dir", dir) // flags after NAME, as docs/writing-providers.md writes them
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "wrote "+filepath.Join(dir, "ok-1"))
	for _, f := range []string{"ok-1.c", "mcpw.h", "mcpw.c", "Makefile", "README.md", ".gitignore"} {
		require.FileExists(t, filepath.Join(dir, "ok-1", f))
	}
}

func runNew(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"mcp-wasm"}, args...), bytes.NewReader(nil), &out, &errb)
	return code, out.String(), errb.String()
}

// tutorialMarker precedes each language's tutorial block in the docs
// (docs/writing-providers.md).
var tutorialMarker = regexp.MustCompile(`^<!-- readme-test skip: tutorial (\w+), run by TestWritingAProvider -->$`)

// readmeTutorials returns each language's tutorial commands, as written.
func readmeTutorials(t *testing.T) map[string][]string {
	out := map[string][]string{}
	for _, doc := range docFiles(t) {
		data, err := os.ReadFile(filepath.Join(testguest.Root(), doc))
		require.NoError(t, err)
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			m := tutorialMarker.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			require.NotContains(t, out, m[1], "%s:%d: a second tutorial for %s", doc, i+1, m[1])
			require.Equal(t, "```sh", lines[i+1], "%s:%d: the tutorial block follows its marker", doc, i+2)
			for _, cmd := range lines[i+2:] {
				if cmd == "```" {
					break
				}
				out[m[1]] = append(out[m[1]], cmd)
			}
		}
	}
	return out
}

// TestWritingAProvider runs the tutorial (docs/writing-providers.md) for every language,
// command by command, with the binary built from this tree as mcp-wasm:
// new, the build, the project's test, check, and serve answering an MCP
// client that lists and reads the provider's resources. The one rewrite:
// `npm install` (the registry is not reachable here) links the compiler
// this repository pins instead.
func TestWritingAProvider(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a project in every language")
	}
	tutorials := readmeTutorials(t)
	require.Len(t, tutorials, 4, "a tutorial per language")
	bin := testguest.Binary(t)
	binDir := t.TempDir()
	require.NoError(t, os.Symlink(bin, filepath.Join(binDir, "mcp-wasm")))
	for _, lang := range []string{"c", "assemblyscript", "rust", "go"} {
		t.Run(lang, func(t *testing.T) {
			env := append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "GOWORK=off", "GOFLAGS=",
				"XDG_CACHE_HOME="+filepath.Join(t.TempDir(), "cache"))
			switch lang {
			case "c":
				testguest.RequireClang(t)
			case "rust":
				tc := testguest.RequireRust(t)
				env = append(env, "CARGO="+tc.Cargo, "RUSTC="+tc.Rustc, "CARGO_NET_OFFLINE=true")
			case "assemblyscript":
				testguest.RequireAssemblyScript(t)
			case "go":
				env = append(env, "GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"))
			}
			runTutorial(t, tutorials[lang], t.TempDir(), env)
		})
	}
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

func runTutorial(t *testing.T, cmds []string, dir string, env []string) {
	served := false
	for _, line := range cmds {
		switch {
		case strings.HasPrefix(line, "cd "):
			dir = filepath.Join(dir, strings.TrimPrefix(line, "cd "))
		case line == "npm install":
			asc := filepath.Join(testguest.Root(), "guests", "assemblyscript", "node_modules")
			require.NoError(t, os.Symlink(asc, filepath.Join(dir, "node_modules")))
		case strings.HasPrefix(line, "mcp-wasm serve "):
			serveTutorial(t, line, dir, env)
			served = true
		default:
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s:\n%s", line, out)
			if strings.Contains(line, "check") || strings.HasPrefix(line, "npm test") {
				require.Contains(t, string(out), "PASS: 10 checks", "%s", line)
			}
		}
	}
	require.True(t, served, "the tutorial ends with a provider served")
}

// serveTutorial starts the tutorial's serve command and lists and reads
// its resources as an MCP client.
func serveTutorial(t *testing.T, line, dir string, env []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command("sh", "-c", "exec "+line)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "tutorial", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err, "%s:\n%s", line, &stderr)
	defer cs.Close()
	list, err := cs.ListResources(ctx, nil)
	require.NoError(t, err, "%s", &stderr)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	require.Equal(t, []string{"hello:///items/hello", "hello:///items/about"}, uris)
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hello:///items/hello"})
	require.NoError(t, err, "%s", &stderr)
	require.Equal(t, "Hello from hello!\n", read.Contents[0].Text)
}
