package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/internal/oci"
	"github.com/mcp-wasm/mcp-wasm/internal/oci/ocitest"
	"github.com/mcp-wasm/mcp-wasm/internal/sigpolicy/sigtest"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// The examples of the docs (README.md and docs/*.md, see docFiles) are
// run. A code block whose opening fence follows the line
// "<!-- readme-test -->" is tested: every mcp-wasm command in it
// (a sh or console block; in a json block, each MCP client entry's command
// and args) runs against the binary built from this tree, in a fresh
// directory laid out as the README assumes (build/mcp-wasm, build/guests/,
// notes.wasm, docs/, mcp.json = the config example of docs/config.md). Commands that
// exit must exit 0 (or fail, when the README shows them failing) and print
// the output the README shows; serve commands must answer an MCP client
// (resources/list) on stdio or on the URL they print, and an HTTP one must
// exit 0 on SIGTERM. Network grants (api.example.com) are checked as far as
// loading: nothing in the examples fetches at start.
//
// A block that runs mcp-wasm and is not marked fails the test, unless it is
// marked "<!-- readme-test skip: REASON -->". A block marked
// "<!-- readme-file NAME -->" (in any of the files) is written as NAME into
// every workspace.
//
// Registry examples run against go-containerregistry's in-process registry
// over TLS (its certificate trusted through SSL_CERT_FILE), standing for
// ghcr.io. cosign is not installed: "cosign sign REF" is done as cosign's
// keyless signing in the README's release workflow would do it, by
// sigstore-go's virtual Sigstore with the workflow identity the README's
// policy names, and the virtual Sigstore's trusted root is the workspace's
// trusted_root.json.

const readmeMarker = "<!-- readme-test -->"

// readmeSubst are the only rewrites of a documented command: machine paths
// the README names for the reader's machine, and fixed ports (the test
// binds a free one). Each must be used by some example.
var readmeSubst = []struct{ from, to, why string }{
	{"go run ./cmd/mcp-wasm", "mcp-wasm", "the binary built from this tree"},
	{"/usr/local/bin/mcp-wasm", "{bin}", "the binary built from this tree"},
	{"/opt/mcp/", "{ws}/build/guests/", "the example modules"},
	{"/home/me/notes", "{home}/notes", "the reader's notes"},
	{"${workspaceFolder}", "{ws}", "VS Code's variable"},
	{"/etc/mcp/", "{ws}/etc/mcp/", "a test certificate, key and token file"},
	{"--http 8080", "--http 0", "a free port"},
	{"--http 0.0.0.0:8443", "--http 127.0.0.1:0", "a free port, on loopback"},
	{"ghcr.io", "{registry}", "the registry: an in-process one over TLS"},
}

// The signer the README's release workflow would sign as (keyless, from
// GitHub Actions).
const (
	readmeSignerIdentity = "https://github.com/acme/notes/.github/workflows/release.yml@refs/tags/v1.0"
	readmeSignerIssuer   = "https://token.actions.githubusercontent.com"
)

// readmeToken is in the token file the test writes for --auth-token-file.
const readmeToken = "readme-test-token-0123456789"

type readmeBlock struct {
	doc   string // the file, relative to the repository root (README.md, docs/x.md)
	line  int    // of the opening fence
	lang  string // sh, console, json, ...
	body  string
	mark  string // "test", "skip", "file" or ""
	file  string // for "file": the name it is written as
	prose string // the text between the previous block and this one
}

// docFiles are the files whose examples are run: README.md and every
// docs/*.md, as paths relative to the repository root.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(testguest.Root(), "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, pages, "docs/*.md: the topic pages are gone")
	files := []string{"README.md"}
	for _, p := range pages {
		files = append(files, filepath.ToSlash(filepath.Join("docs", filepath.Base(p))))
	}
	return files
}

// readmeBlocks returns the code blocks of every doc file, in order.
func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	var blocks []readmeBlock
	for _, doc := range docFiles(t) {
		blocks = append(blocks, docBlocks(t, doc)...)
	}
	return blocks
}

func docBlocks(t *testing.T, doc string) []readmeBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testguest.Root(), doc))
	require.NoError(t, err)
	var blocks []readmeBlock
	var cur *readmeBlock
	var prose, prev []string
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &readmeBlock{doc: doc, line: i + 1, lang: strings.TrimPrefix(line, "```"), prose: strings.Join(prose, "\n")}
			if p := lastNonEmpty(prev); p == readmeMarker {
				cur.mark = "test"
			} else if strings.HasPrefix(p, "<!-- readme-test skip:") {
				cur.mark = "skip"
			} else if name, ok := strings.CutPrefix(p, "<!-- readme-file "); ok {
				cur.mark, cur.file = "file", strings.TrimSuffix(name, " -->")
			}
			prose = nil
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.body += line + "\n"
		default:
			prose = append(prose, line)
		}
		prev = append(prev, line)
	}
	require.Nil(t, cur, "%s has an unclosed code block", doc)
	return blocks
}

func lastNonEmpty(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			return s
		}
	}
	return ""
}

// readmeCommand is one command of a block and the output shown after it.
type readmeCommand struct {
	argv   []string    // set for a client config entry (run without a shell)
	shell  string      // set for a sh or console command
	auth   *clientAuth // set for a client's config of a server with a token
	output []string
}

// clientAuth is how a client config reaches an HTTP server with a token:
// its URL and the headers it sends, variables unexpanded.
type clientAuth struct {
	url     string
	headers map[string]string
}

var invocationRE = regexp.MustCompile(`^(?:go run \./cmd/mcp-wasm|\S*mcp-wasm)\s+(serve|inspect|call|validate|push|pull|lock|check|new)\b`)

// commands extracts the commands of a block: "$ " lines of a console block
// (with the lines after them as output), every line of a sh block but
// comments, the command and args of each entry of a client config.
func (b readmeBlock) commands(t *testing.T) []readmeCommand {
	t.Helper()
	var out []readmeCommand
	switch b.lang {
	case "json":
		// An MCP client config: {"mcpServers" or "servers": {name: {command, args}}}.
		var cfg map[string]json.RawMessage
		if json.Unmarshal([]byte(b.body), &cfg) != nil {
			return nil // not an object: no client config
		}
		for _, key := range []string{"mcpServers", "servers"} {
			if cfg[key] == nil {
				continue
			}
			var servers map[string]struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				URL     string            `json:"url"`
				Headers map[string]string `json:"headers"`
			}
			require.NoError(t, json.Unmarshal(cfg[key], &servers), "%s:%d: %s", b.doc, b.line, key)
			for _, s := range servers {
				switch {
				case s.URL != "" && len(s.Headers) > 0:
					out = append(out, readmeCommand{auth: &clientAuth{url: s.URL, headers: s.Headers}})
				case slices.Contains(s.Args, "mcp-remote"):
					out = append(out, readmeCommand{argv: append([]string{s.Command}, s.Args...), auth: headerArgs(t, s.Args)})
				case s.Command != "":
					out = append(out, readmeCommand{argv: append([]string{s.Command}, s.Args...)})
				}
			}
		}
	case "sh", "console":
		lines := strings.Split(strings.TrimSuffix(b.body, "\n"), "\n")
		for i := 0; i < len(lines); i++ {
			line := lines[i]
			if b.lang == "console" && !strings.HasPrefix(line, "$ ") {
				if len(out) > 0 {
					out[len(out)-1].output = append(out[len(out)-1].output, line)
				}
				continue
			}
			line = strings.TrimPrefix(line, "$ ")
			if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
				continue
			}
			for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
				i++
				line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
			}
			c := readmeCommand{shell: line}
			if strings.HasPrefix(line, "claude mcp add ") {
				c.auth = claudeAuth(t, line)
			}
			out = append(out, c)
		}
	}
	return out
}

// headerArgs reads the URL (the first http(s) argument) and every
// "--header NAME: VALUE" of a command line (mcp-remote's, Claude Code's).
func headerArgs(t *testing.T, args []string) *clientAuth {
	t.Helper()
	a := &clientAuth{headers: map[string]string{}}
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--header" && i+1 < len(args):
			name, value, ok := strings.Cut(args[i+1], ":")
			require.True(t, ok, "--header %q: NAME: VALUE", args[i+1])
			a.headers[strings.TrimSpace(name)] = strings.TrimSpace(value)
			i++
		case a.url == "" && (strings.HasPrefix(args[i], "https://") || strings.HasPrefix(args[i], "http://")):
			a.url = args[i]
		}
	}
	if len(a.headers) == 0 {
		return nil
	}
	return a
}

// claudeAuth reads a "claude mcp add" line as claude would get it: bash
// splits and unquotes it (a claude function prints its arguments), so a
// variable the shell would expand now is expanded (to nothing) here too.
func claudeAuth(t *testing.T, line string) *clientAuth {
	t.Helper()
	out, err := exec.Command("bash", "-c", `claude() { printf '%s\0' "$@"; }; `+line).Output()
	require.NoError(t, err, line)
	return headerArgs(t, strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"))
}

func (c readmeCommand) text() string {
	switch {
	case c.argv != nil:
		return strings.Join(c.argv, " ")
	case c.shell == "" && c.auth != nil:
		return "the client config of " + c.auth.url
	}
	return c.shell
}

// subcommand is the mcp-wasm command run, or "" for another program.
func (c readmeCommand) subcommand() string {
	if m := invocationRE.FindStringSubmatch(c.text()); m != nil {
		return m[1]
	}
	return ""
}

// TestReadmeExamples runs the marked examples of README.md and docs/*.md.
func TestReadmeExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the guests and runs every README example")
	}
	env := newReadmeEnv(t)
	tested := 0
	for _, b := range readmeBlocks(t) {
		if b.mark == "file" {
			env.files[b.file] = b.body
		}
	}
	for _, b := range readmeBlocks(t) {
		cmds := b.commands(t)
		runs := 0
		for _, c := range cmds {
			if c.subcommand() != "" || c.auth != nil {
				runs++
			}
		}
		if b.mark == "" {
			require.Zero(t, runs, "%s:%d runs mcp-wasm but is not marked: put %s (or <!-- readme-test skip: REASON -->) on the line before it", b.doc, b.line, readmeMarker)
			continue
		}
		if b.mark != "test" {
			continue
		}
		require.NotZero(t, runs, "%s:%d is marked %s but runs no mcp-wasm command", b.doc, b.line, readmeMarker)
		tested++
		t.Run(fmt.Sprintf("%s:%d", b.doc, b.line), func(t *testing.T) {
			ws := env.workspace(t, b)
			vars := map[string]string{}
			for _, c := range cmds {
				if name, val, ok := strings.Cut(strings.TrimPrefix(c.shell, "export "), "="); ok && strings.HasPrefix(c.shell, "export ") {
					vars[name] = val
					continue
				}
				if c.auth != nil {
					env.checkAuth(t, ws, c)
					continue
				}
				if c.subcommand() == "" {
					if ref, ok := strings.CutPrefix(c.shell, "cosign sign --yes "); ok {
						env.cosignSign(t, ws, ref)
						continue
					}
					t.Logf("not an mcp-wasm command, not run: %s", c.text())
					continue
				}
				env.run(t, ws, vars, c)
			}
		})
	}
	require.GreaterOrEqual(t, tested, 21, "fewer examples are tested than are marked today (README.md and docs/*.md): did the marker change, or a page go?")
	for _, s := range readmeSubst {
		require.True(t, env.used[s.from], "substitution %q is used by no example: remove it", s.from)
	}
}

// readmeEnv holds what every example shares: the binary, the guests and
// a home directory (so the compilation cache is shared).
type readmeEnv struct {
	bin, home string
	guests    map[string]string // name -> .wasm
	used      map[string]bool   // substitutions applied
	files     map[string]string // <!-- readme-file NAME --> blocks
	registry  *ocitest.Registry // ghcr.io, over TLS
	certFile  string            // its certificate, as SSL_CERT_FILE
	sigstore  *sigtest.Keyless  // signs as cosign would; its trusted root
}

func newReadmeEnv(t *testing.T) *readmeEnv {
	e := &readmeEnv{bin: binary(t), home: t.TempDir(), used: map[string]bool{}, guests: map[string]string{}, files: map[string]string{}}
	var cert []byte
	e.registry, cert = ocitest.NewTLS(t)
	e.certFile = filepath.Join(e.home, "registry.crt")
	require.NoError(t, os.WriteFile(e.certFile, cert, 0o644))
	e.sigstore = sigtest.NewKeyless(t, t.TempDir())
	for _, g := range []string{"notes", "files", "httpjson"} {
		e.guests[g] = testguest.Go(t, "guests/"+g)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(e.home, "notes"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "notes", "todo.md"), []byte("# todo\n"), 0o644))
	return e
}

// workspace lays out a directory as the docs assume. mcp.json is the
// config example (configExample), with the change the block's prose states ("With
// line N of the example above changed to `...`").
func (e *readmeEnv) workspace(t *testing.T, b readmeBlock) string {
	t.Helper()
	ws := t.TempDir()
	for _, d := range []string{"build/guests", "docs", "etc/mcp"} {
		require.NoError(t, os.MkdirAll(filepath.Join(ws, d), 0o755))
	}
	require.NoError(t, os.Symlink(e.bin, filepath.Join(ws, "build", "mcp-wasm")))
	for name, path := range e.guests {
		require.NoError(t, os.Symlink(path, filepath.Join(ws, "build", "guests", name+".wasm")))
	}
	if strings.Contains(b.body, "cdocs.wasm") {
		require.NoError(t, os.Symlink(testguest.C(t, "cdocs", "guests/c/mcpw.c", "guests/cdocs/cdocs.c"), filepath.Join(ws, "build", "guests", "cdocs.wasm")))
	}
	require.NoError(t, os.Symlink(e.guests["notes"], filepath.Join(ws, "notes.wasm")))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "docs", "guide.md"), []byte("# guide\n"), 0o644))
	writeTestCert(t, filepath.Join(ws, "etc", "mcp"))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "etc", "mcp", "tokens"), []byte("reader "+readmeToken+"\n"), 0o600))

	lines := strings.Split(configExample(t), "\n")
	if c := regexp.MustCompile("With line (\\d+) of the example above changed to\\s+`([^`]*)`").FindStringSubmatch(b.prose); c != nil {
		var n int
		_, err := fmt.Sscan(c[1], &n)
		require.NoError(t, err)
		require.Less(t, n-1, len(lines))
		indent := lines[n-1][:len(lines[n-1])-len(strings.TrimLeft(lines[n-1], " "))]
		lines[n-1] = indent + c[2]
	}
	require.NoError(t, os.WriteFile(filepath.Join(ws, "mcp.json"), []byte(strings.Join(lines, "\n")), 0o644))
	for name, body := range e.files {
		require.NoError(t, os.WriteFile(filepath.Join(ws, name), []byte(e.subst(ws, body)), 0o644))
	}
	root, err := os.ReadFile(e.sigstore.RootFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "trusted_root.json"), root, 0o644))
	return ws
}

// configExample is the config file example: the json block after
// "<!-- config example -->" in the docs (docs/config.md), which exactly one
// doc file holds.
func configExample(t *testing.T) string {
	t.Helper()
	re := regexp.MustCompile("(?s)<!-- config example -->\\s*```json\n(.*?)```")
	var found []string
	var example string
	for _, doc := range docFiles(t) {
		data, err := os.ReadFile(filepath.Join(testguest.Root(), doc))
		require.NoError(t, err)
		if m := re.FindSubmatch(data); m != nil {
			found, example = append(found, doc), string(m[1])
		}
	}
	require.Len(t, found, 1, "exactly one of README.md and docs/*.md holds the config example after <!-- config example -->")
	return example
}

// cosignSign signs the manifest ref names now, keyless, as the README's
// release workflow, and attaches the bundle where cosign does.
func (e *readmeEnv) cosignSign(t *testing.T, ws, ref string) {
	t.Helper()
	r, err := oci.ParseRef(e.subst(ws, ref))
	require.NoError(t, err)
	client := oci.NewClient(oci.Options{})
	store, err := oci.OpenStore(filepath.Join(t.TempDir(), "store"))
	require.NoError(t, err)
	t.Setenv("SSL_CERT_FILE", e.certFile)
	p, err := client.Pull(t.Context(), r, store, 64<<20)
	require.NoError(t, err, "cosign sign %s: the README pushes it first", ref)
	_, err = client.AttachBundle(t.Context(), p.Ref, e.sigstore.SignDigest(t, readmeSignerIdentity, readmeSignerIssuer, p.Ref.Digest, sigtest.CosignSignPredicate))
	require.NoError(t, err)
	t.Logf("cosign sign %s: signed %s as %s", ref, p.Ref, readmeSignerIdentity)
}

func (e *readmeEnv) subst(ws, s string) string {
	for _, r := range readmeSubst {
		if strings.Contains(s, r.from) {
			e.used[r.from] = true
			to := strings.NewReplacer("{bin}", e.bin, "{ws}", ws, "{home}", e.home, "{registry}", e.registry.Host).Replace(r.to)
			s = strings.ReplaceAll(s, r.from, to)
		}
	}
	return s
}

// command builds the process of c: a client config entry runs directly,
// a shell command in bash (for ~, quotes and comments), in the workspace.
func (e *readmeEnv) command(ctx context.Context, ws string, vars map[string]string, c readmeCommand) *exec.Cmd {
	var cmd *exec.Cmd
	if c.argv != nil {
		argv := make([]string, len(c.argv))
		for i, a := range c.argv {
			argv[i] = e.subst(ws, a)
		}
		cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
	} else {
		cmd = exec.CommandContext(ctx, "bash", "-c", "exec "+e.subst(ws, c.shell))
	}
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_CACHE_HOME="+filepath.Join(e.home, ".cache"),
		"PATH="+filepath.Dir(e.bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"API_TOKEN=readme-api-token", // exported in the README's Grants section
		"SSL_CERT_FILE="+e.certFile)  // trusts the registry standing for ghcr.io
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

func (e *readmeEnv) run(t *testing.T, ws string, vars map[string]string, c readmeCommand) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := e.command(ctx, ws, vars, c)
	t.Logf("run: %s", strings.Join(cmd.Args, " "))
	switch {
	case c.subcommand() == "serve" && strings.Contains(c.text(), "--http"):
		e.serveHTTP(t, cmd, c)
	case c.subcommand() == "serve":
		e.serveStdio(t, ctx, cmd)
	default:
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		out := stdout.String() + stderr.String()
		if fails := len(c.output) > 0 && strings.HasPrefix(c.output[0], "mcp-wasm: "); fails {
			require.Error(t, err, "the README shows %q failing:\n%s", c.text(), out)
		} else {
			require.NoError(t, err, "%s:\n%s", c.text(), out)
		}
		requireLinesInOrder(t, c.output, out)
	}
}

// serveStdio checks a stdio server answers resources/list.
func (e *readmeEnv) serveStdio(t *testing.T, ctx context.Context, cmd *exec.Cmd) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "readme", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err, "serve did not answer initialize:\n%s", &stderr)
	_, err = cs.ListResources(ctx, nil)
	require.NoError(t, err, "resources/list:\n%s", &stderr)
	require.NoError(t, cs.Close())
}

// serveHTTP starts an HTTP server, connects to the URL it prints (with the
// test certificate and token), lists resources, and stops it with SIGTERM.
func (e *readmeEnv) serveHTTP(t *testing.T, cmd *exec.Cmd, c readmeCommand) {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill() }()
	var lines []string
	found, done := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-found:
	case <-done:
		t.Fatalf("serve exited before listening:\n%s", strings.Join(lines, "\n"))
	}
	roots := x509.NewCertPool()
	if pemCert, err := os.ReadFile(filepath.Join(cmd.Dir, "etc", "mcp", "tls.crt")); err == nil {
		roots.AppendCertsFromPEM(pemCert)
	}
	hc := &http.Client{Transport: bearer{token: readmeToken, rt: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}}
	client := mcp.NewClient(&mcp.Implementation{Name: "readme", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	require.NoError(t, err)
	_, err = cs.ListResources(t.Context(), nil)
	require.NoError(t, err)
	require.NoError(t, cs.Close())
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	<-done
	require.NoError(t, cmd.Wait(), "serve --http must exit 0 on SIGTERM:\n%s", strings.Join(lines, "\n"))
	requireLinesInOrder(t, c.output, strings.Join(lines, "\n"))
}

// tokenVarRE is a variable a client fills in: VS Code's ${input:ID} and
// ${env:NAME}, and ${NAME} (Claude Code, mcp-remote).
var tokenVarRE = regexp.MustCompile(`\$\{(?:input:|env:)?[A-Za-z_][A-Za-z0-9_.-]*\}`)

// checkAuth runs a client config with a token: its Authorization header
// must leave the token to a variable; with the variable filled in, the
// go-sdk client sending exactly its headers lists resources from a
// `serve --http --auth-token-env` at the config's path, and with the
// variable left unexpanded it is refused.
func (e *readmeEnv) checkAuth(t *testing.T, ws string, c readmeCommand) {
	t.Helper()
	a := c.auth
	authz := a.headers["Authorization"]
	require.True(t, strings.HasPrefix(authz, "Bearer "), "%s: the Authorization header is \"Bearer TOKEN\", got %q", c.text(), authz)
	require.Regexp(t, tokenVarRE, authz, "%s: the token must come from a variable, not be written in the config", c.text())
	u, err := url.Parse(a.url)
	require.NoError(t, err)
	require.Equal(t, server.MCPPath, u.Path, "%s: the URL is the server's /mcp endpoint", c.text())

	srv := startHTTP(t, []string{"README_MCP_TOKEN=" + readmeToken}, "--auth-token-env", "README_MCP_TOKEN", "--allow-dir", ws)
	connect := func(headers map[string]string) error {
		hc := &http.Client{Transport: headerTransport{headers: headers, rt: http.DefaultTransport}}
		client := mcp.NewClient(&mcp.Implementation{Name: "readme-auth", Version: "1"}, nil)
		cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: hc, MaxRetries: -1}, nil)
		if err != nil {
			return err
		}
		defer cs.Close()
		_, err = cs.ListResources(t.Context(), nil)
		return err
	}
	filled := map[string]string{}
	for k, v := range a.headers {
		filled[k] = tokenVarRE.ReplaceAllString(v, readmeToken)
	}
	require.NoError(t, connect(filled), "%s with the token filled in", c.text())
	require.Error(t, connect(a.headers), "%s with the variable unexpanded must be refused", c.text())
}

// headerTransport sends the given headers with every request.
type headerTransport struct {
	headers map[string]string
	rt      http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.rt.RoundTrip(r)
}

type bearer struct {
	token string
	rt    http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

// requireLinesInOrder checks every line the README shows appears, in
// order, in out; a documented port stands for any port.
func requireLinesInOrder(t *testing.T, want []string, out string) {
	t.Helper()
	got := strings.Split(out, "\n")
	i := 0
	for _, w := range want {
		re := regexp.MustCompile("^" + regexp.MustCompile(`:(8080|8443)\b`).ReplaceAllString(regexp.QuoteMeta(w), `:\d+`) + "$")
		for i < len(got) && !re.MatchString(got[i]) {
			i++
		}
		require.Less(t, i, len(got), "the README shows %q, the command printed:\n%s", w, out)
		i++
	}
}

// writeTestCert writes a self-signed certificate for 127.0.0.1 and
// localhost to dir/tls.crt and its key to dir/tls.key.
func writeTestCert(t *testing.T, dir string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "readme-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost", "mcp.example.com"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
}
