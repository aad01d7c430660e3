//go:build unix

// Package difftest holds the differential test of the two files
// providers: the C one (guests/cfiles, the built-in default) and the Go
// one (guests/files, the Go SDK's example) must answer everything the same
// way, errors included, through the runtime and through the real server.
package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/internal/testguest"
	"github.com/mcp-wasm/mcp-wasm/internal/testkit"
	"github.com/mcp-wasm/mcp-wasm/runtime"
)

func cWasm(tb testing.TB) string {
	return testguest.C(tb, "cfiles", "guests/c/mcpw.c", "guests/cfiles/cfiles.c")
}

func goWasm(tb testing.TB) string { return testguest.Go(tb, "guests/files") }

// fixture is the served tree: three grants (a directory with everything
// in it, a second directory, and a single file beside a granted
// subdirectory), their real paths, and the paths worth asking about.
type fixture struct {
	grants   []string // host paths, as --allow-dir would give them
	roots    []string // the real paths of the main tree and the second one
	main     string
	extra    []string // URIs to read beyond the listed ones
	dirs     []string // completion values: each directory and more
	changing string   // a directory the change sequence edits
}

const capBytes = 70000

func write(t *testing.T, p string, body []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, body, 0o644))
	mtime := time.Date(2026, 11, 21, 12, 0, 0, 123456789, time.UTC)
	require.NoError(t, os.Chtimes(p, mtime, mtime))
}

// newFixture builds the tree. Every kind of entry the providers must agree
// on is here: sizes around the read cap and the 512-byte text sniff, text
// and binary of known and unknown types, names that need escaping or are
// not UTF-8, hidden files and directories, empty directories, symlinks in
// and out and broken, a FIFO and a socket, paths around the cursor's
// length limit, and enough files for several pages.
func newFixture(t *testing.T) fixture {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	main, second, third := filepath.Join(base, "main tree"), filepath.Join(base, "second"), filepath.Join(base, "third")
	at := func(rel string) string { return filepath.Join(main, filepath.FromSlash(rel)) }
	files := map[string][]byte{
		"README.md": []byte("# hello\n"), "Makefile": []byte("all:\n"), "empty.txt": nil, "empty.png": nil,
		"img.png": []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "latin1.txt": []byte("caf\xe9"),
		"noext": []byte("plain words\n"), "blob": []byte("\x00\x01\x02"), "esc": []byte("\x1b[0m\f\r\n\t"),
		"late-control": append([]byte(strings.Repeat("a", 512)), 1), "early-control": append([]byte(strings.Repeat("a", 511)), 1),
		"cut-rune": append([]byte(strings.Repeat("a", 511)), "é"...), "bad-utf8": []byte("a\xc0\xafb"),
		"surrogate.txt": []byte("\xed\xa0\x80"), "data.json": []byte(`{"a":1}`), "UPPER.MD": []byte("# up"),
		"a b#c?.md": []byte("spaces"), "100%.txt": []byte("pct"), "semi;colon,comma.txt": []byte("x"),
		"plus+eq=at@dollar$amp&tilde~colon:.txt": []byte("x"), "日本語/ファイル.txt": []byte("日本"),
		"emoji-😀.txt": []byte("😀"), "line\nbreak.txt": []byte("nl"), "back\\slash.txt": []byte("bs"),
		"sub/deep/deeper/x.go": []byte("package x\n"), "sub/a.txt": []byte("a"), "a-b/x.md": []byte("x"),
		"a.txt": []byte("a"), "a/c.go": []byte("package c"), ".hidden": []byte("h"), ".git/config": []byte("[core]"),
		"sub/.env": []byte("SECRET=1"), "visible/.hiddendir/f.txt": []byte("f"),
		"\xff\xfe.txt": []byte("not utf-8 name"), "ok/\xff/inside.txt": []byte("under a bad dir"),
	}
	for _, n := range []int{1, 511, 512, 513, 4096, 65536, capBytes - 1, capBytes, capBytes + 1, 200000} {
		files[fmt.Sprintf("sizes/%07d.txt", n)] = []byte(strings.Repeat("x", n))
		files[fmt.Sprintf("sizes/%07d.bin", n)] = append([]byte{0}, []byte(strings.Repeat("y", n-1))...)
	}
	for i := range 1100 {
		files[fmt.Sprintf("many/f%04d.txt", i)] = []byte(fmt.Sprintf("file %d\n", i))
	}
	// The text sniff of a file without a type: every control byte (and
	// DEL and a high byte) in every lane of a word, in the tail after the
	// last whole word, and next to newlines, which the sniff passes whole.
	for _, c := range append([]byte{0x7f, 0x80}, func() (b []byte) {
		for c := range byte(0x20) {
			b = append(b, c)
		}
		return b
	}()...) {
		for _, at := range []int{0, 3, 7, 8, 9, 15, 16, 22} {
			body := []byte("abc\ndefghij\nklmnop\nqrs\n")[:23]
			body[at] = c
			files[fmt.Sprintf("sniff/%02x-%02d", c, at)] = body
		}
	}
	for rel, body := range files {
		write(t, at(rel), body)
	}
	for _, d := range []string{"emptydir", "sub/emptier", "onlyhidden/.x"} {
		require.NoError(t, os.MkdirAll(at(d), 0o755))
	}
	write(t, at("onlyhidden/.x/y"), []byte("y"))
	outside := filepath.Join(base, "outside")
	write(t, filepath.Join(outside, "secret"), []byte("SECRET"))
	for link, target := range map[string]string{
		"link.txt": "a.txt", "linkdir": "sub", "config": ".hidden", "gitdir": ".git", "sub/up": "..",
		"out-abs": filepath.Join(outside, "secret"), "out-rel": "../outside/secret", "outdir": outside,
		"dangling": "nowhere", "loop": "loop",
	} {
		require.NoError(t, os.Symlink(target, at(link)))
	}
	require.NoError(t, syscall.Mkfifo(at("fifo"), 0o644))
	require.NoError(t, syscall.Mkfifo(at("sub/fifo"), 0o644))
	l, err := net.Listen("unix", at("sock"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })

	// Around the cursor's limit: the escaped guest path of a listed file is
	// at most 1022 bytes ("p:" + path fits 1024).
	long := at("long")
	escRoot := len(escape(main))
	seg := strings.Repeat("s", 200)
	dir, used := long, escRoot+len("/long")
	for used+1+200+1+40 < 1022 {
		dir, used = filepath.Join(dir, seg), used+1+200
	}
	for _, extra := range []int{-1, 0, 1, 2} {
		n := 1022 - used - 1 + extra // the file name that makes the path 1022 + extra bytes
		write(t, filepath.Join(dir, strings.Repeat("f", n-3)+fmt.Sprintf("%03d", extra+1)), []byte("long"))
	}

	write(t, filepath.Join(second, "README.md"), []byte("# second\n"))
	write(t, filepath.Join(second, "notes", "n.md"), []byte("n"))
	write(t, filepath.Join(third, "todo.md"), []byte("- [ ] test\n"))
	write(t, filepath.Join(third, "private.txt"), []byte("not granted"))
	write(t, filepath.Join(third, "granted", "g.txt"), []byte("g"))

	f := fixture{
		grants:   []string{main, second, filepath.Join(third, "todo.md"), filepath.Join(third, "granted")},
		roots:    []string{main, second, third},
		main:     main,
		changing: filepath.Join(main, "sub"),
	}
	uri := func(p string) string { return "file://" + escape(p) }
	for _, rel := range []string{
		".hidden", ".git/config", "sub/.env", "visible/.hiddendir/f.txt", "onlyhidden/.x/y",
		"link.txt", "linkdir/a.txt", "config", "gitdir/config", "sub/up/a.txt", "sub/up/sub/a.txt",
		"out-abs", "out-rel", "outdir/secret", "dangling", "loop", "fifo", "sub/fifo", "sock",
		"sub", "emptydir", "sub/deep", "missing", "a.txt/x", "sizes/nope",
	} {
		f.extra = append(f.extra, uri(filepath.Join(main, filepath.FromSlash(rel))))
	}
	for _, p := range []string{main, second, third, filepath.Join(third, "private.txt"), filepath.Join(third, "granted"),
		filepath.Join(third, "todo.md", "x"), base, filepath.Join(base, "outside", "secret"), "/etc/passwd", "/"} {
		f.extra = append(f.extra, uri(p))
	}
	m := "file://" + escape(main)
	f.extra = append(f.extra,
		m+"/a.txt/", m+"//a.txt", m+"/./a.txt", m+"/sub/../a.txt", m+"/sub/%2E%2E/a.txt", m+"/sub%2Fa.txt", m+"/sub%2fa.txt",
		m+"/sub%5Ca.txt", m+"/a.txt%00", m+"/%zz", m+"/a%2", m+"/%C3%A9", m+"/%FF.txt", m+"/a.txt?x=1", m+"/a.txt#top",
		m+"/%61.txt", m+"/sizes/%30000001.txt", "file:///", "file://", "file:", "file:///%2e", "file:///%2F",
		"file://localhost"+escape(main)+"/a.txt", "FILE://"+escape(main)+"/a.txt", "file:"+escape(main)+"/a.txt",
		strings.Replace(m, "main%20tree", "main tree", 1)+"/a.txt", m+"/back%5Cslash.txt", m+"/line%0Abreak.txt",
		m+"/%F0%9F%98%80", m+"/emoji-%F0%9F%98%80.txt", m+"/%E6%97%A5%E6%9C%AC%E8%AA%9E/%E3%83%95%E3%82%A1%E3%82%A4%E3%83%AB.txt",
		m+"/ok/%FF/inside.txt",
	)
	f.dirs = []string{"", "a", "s", "sub/", "sub/d", "sub/deep/", "sub/deep/deeper/", "many/f00", "many/f1", "sizes/",
		"linkdir/", "sub/up/", ".git/", "visible/", "visible/.", "onlyhidden/", "emptydir/", "nope/", "../", "/etc/",
		"a.txt/", "日本語/", "日本語/フ", "\x00", "sub/\x00", "sub//", "./sub/", "sub/./", "long/", "%61", "UP", "ok/"}
	return f
}

// escape escapes a path as the providers do (url.PathEscape per segment).
func escape(p string) string {
	segs := strings.Split(filepath.ToSlash(p), "/")
	for i, s := range segs {
		segs[i] = pathEscape(s)
	}
	return strings.Join(segs, "/")
}

func pathEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~$&+:=@", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// outcome is a result, or an error's kind and message.
type outcome struct {
	Result any    `json:",omitempty"`
	Error  string `json:",omitempty"`
}

func record[T any](r T, err error) outcome {
	if err != nil {
		return outcome{Error: err.Error()}
	}
	return outcome{Result: r}
}

// load loads wasm over the fixture's grants with config.
func load(t *testing.T, wasm string, f fixture, config map[string]string) *runtime.Provider {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	rt, err := runtime.New(ctx, runtime.NewConfig().WithCacheDir(filepath.Join(testguest.Root(), "build", "runtime-test-cache")))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rt.Close(ctx) })
	var g runtime.Grants
	for _, p := range f.grants {
		g.Dirs = append(g.Dirs, runtime.DirGrant{HostPath: p})
	}
	g.Config = config
	// -race on a busy machine compiles the Go guest slowly.
	p, err := rt.LoadFile(ctx, wasm, testkit.Limits(runtime.NewProviderConfig()).WithPoolSize(1).WithCompileTimeout(10*time.Minute).WithGrants(g))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close(ctx) })
	return p
}

// transcript asks a provider everything: describe, every list page and
// bad cursors, templates, every listed file and every extra URI read,
// completion of every directory value in every template.
func transcript(t *testing.T, p *runtime.Provider, f fixture) map[string]any {
	ctx := t.Context()
	tr := map[string]any{"describe": p.Describe()}
	var pages []*abi.ListResult
	var listed []string
	for cursor := ""; ; {
		page, err := p.List(ctx, cursor)
		require.NoError(t, err, "list %q", cursor)
		pages = append(pages, page)
		for _, r := range page.Resources {
			listed = append(listed, r.URI)
		}
		if cursor = page.NextCursor; cursor == "" || len(pages) > 20 {
			break
		}
	}
	tr["list"] = pages
	for _, c := range []string{"x", "p:", "p:/", "p:x", "p:/nope/a", "p:" + escape(f.main), "p:" + escape(f.main) + "/%zz",
		"p:" + escape(f.main) + "/a%2Fb", "p:" + escape(f.main) + "/zzzz", "p:" + escape(f.main) + "/many/f0500.txt"} {
		tr["list "+c] = record(p.List(ctx, c))
	}
	tr["templates"] = record(p.Templates(ctx, ""))
	tr["templates x"] = record(p.Templates(ctx, "x"))
	for _, u := range append(listed, f.extra...) {
		tr["read "+u] = record(p.Read(ctx, u))
	}
	tmpls := []string{"file:///{+path}", "file://" + escape(f.main) + "{+path}", "file://" + escape(f.main) + "/{path}"}
	for _, r := range f.roots {
		tmpls = append(tmpls, "file://"+escape(r)+"/{+path}")
	}
	for _, tmpl := range tmpls {
		for _, v := range f.dirs {
			tr["complete "+tmpl+" "+v] = record(p.Complete(ctx, abi.CompleteRequest{Template: tmpl, Argument: abi.CompleteArgument{Name: "path", Value: v}}))
		}
		tr["complete "+tmpl+" other"] = record(p.Complete(ctx, abi.CompleteRequest{Template: tmpl, Argument: abi.CompleteArgument{Name: "id"}}))
	}
	require.Zero(t, p.Stats().Faults, "no call may fault")
	return tr
}

func canonical(t *testing.T, v any) string {
	b, err := json.MarshalIndent(v, "", " ")
	require.NoError(t, err)
	return string(b)
}

// configs are the operator settings each provider is compared under.
var configs = map[string]map[string]string{
	"default":     nil,
	"cap":         {"max_file_bytes": fmt.Sprint(capBytes)},
	"show hidden": {"show_hidden": " True "},
	"bad cap":     {"max_file_bytes": "lots"},
}

// TestFilesSameThroughRuntime compares, under each config, what the two
// providers answer through the runtime to everything a client can ask.
func TestFilesSameThroughRuntime(t *testing.T) {
	f := newFixture(t)
	goW, cW := goWasm(t), cWasm(t)
	for name, config := range configs {
		t.Run(name, func(t *testing.T) {
			ref := transcript(t, load(t, goW, f, config), f)
			checkReference(t, name, ref, f)
			require.JSONEq(t, canonical(t, ref), canonical(t, transcript(t, load(t, cW, f, config), f)), "the C files provider differs from the Go one")
		})
	}
}

// checkReference pins the Go provider to its specification, so that two
// identical wrong answers cannot pass.
func checkReference(t *testing.T, config string, tr map[string]any, f fixture) {
	pages := tr["list"].([]*abi.ListResult)
	require.Len(t, pages, 3, "over 1100 files: three pages of 500")
	m := "file://" + escape(f.main)
	var uris []string
	for _, p := range pages {
		for _, r := range p.Resources {
			uris = append(uris, r.URI)
		}
	}
	require.Contains(t, uris, m+"/a%20b%23c%3F.md")
	require.Contains(t, uris, m+"/sizes/0200000.txt", "a file over the cap is listed")
	require.Contains(t, uris, "file://"+escape(f.roots[2])+"/todo.md", "a single file, at its real path")
	require.NotContains(t, uris, "file://"+escape(f.roots[2])+"/private.txt")
	require.Equal(t, config == "show hidden", strings.Contains(strings.Join(uris, " "), "/.hidden"))
	// List and read agree on the type, and on the size of what was read.
	for _, p := range pages {
		for _, r := range p.Resources {
			read := tr["read "+r.URI].(outcome)
			if read.Error != "" {
				require.Contains(t, read.Error, "max_file_bytes", "%s: listed, but reading it fails", r.URI)
				continue
			}
			c := read.Result.(*abi.ReadResult).Contents[0]
			require.Equal(t, r.MIMEType, c.MIMEType, "%s: list and read disagree on the type", r.URI)
			require.Equal(t, r.URI, c.URI)
		}
	}
	long := 0
	for _, u := range uris {
		if strings.Contains(u, "/long/") {
			long++
			require.LessOrEqual(t, len(u)-len("file://"), 1022)
		}
	}
	require.Equal(t, 2, long, "of four files 1021 to 1024 escaped bytes long, two fit a cursor")
	big := tr["read "+m+"/sizes/0200000.txt"].(outcome)
	switch config {
	case "bad cap":
		require.Contains(t, big.Error, "config max_file_bytes is not a byte count")
	case "cap":
		require.Contains(t, big.Error, "raise the files provider's max_file_bytes to 200000 or more")
	default: // the default cap, 1 MiB
		require.NotEmpty(t, big.Result)
		require.Empty(t, big.Error)
	}
	if config == "default" {
		txt := tr["read "+m+"/noext"].(outcome).Result.(*abi.ReadResult).Contents[0]
		require.Equal(t, "plain words\n", *txt.Text)
		require.Empty(t, txt.MIMEType, "no type by name: none, in list and read alike")
		require.Contains(t, tr["read "+m+"/link.txt"].(outcome).Error, "a symbolic link is on the way")
		require.Contains(t, tr["read "+m+"/fifo"].(outcome).Error, "special files are not served")
	}
}

// TestFilesDifferentialDetects: the comparison is not vacuous: the same
// provider under another config (hidden files shown) differs.
func TestFilesDifferentialDetects(t *testing.T) {
	f := newFixture(t)
	cW := cWasm(t)
	a := canonical(t, transcript(t, load(t, cW, f, nil), f))
	b := canonical(t, transcript(t, load(t, cW, f, configs["show hidden"]), f))
	require.NotEqual(t, a, b)
}

// TestFilesChangesSame runs one change sequence against both providers in
// lockstep: the same edits, the same changed paths, the same answers
// (cursors included).
func TestFilesChangesSame(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	provs := []*runtime.Provider{load(t, goWasm(t), f, nil), load(t, cWasm(t), f, nil)}
	cursors := make([]string, 2)
	dir := f.changing
	steps := []struct {
		edit  func()
		paths []string
	}{
		{func() {}, nil}, // the baseline
		{func() { write(t, filepath.Join(dir, "a.txt"), []byte("a2")) }, []string{filepath.Join(dir, "a.txt")}},
		{func() { write(t, filepath.Join(dir, "new.md"), []byte("n")) }, []string{filepath.Join(dir, "new.md")}},
		{func() { write(t, filepath.Join(dir, "nd", "x.md"), []byte("x")) }, []string{filepath.Join(dir, "nd")}},
		{func() { require.NoError(t, os.RemoveAll(filepath.Join(dir, "deep"))) }, []string{filepath.Join(dir, "deep")}},
		{func() { write(t, filepath.Join(dir, ".hid"), []byte("h")) }, []string{filepath.Join(dir, ".hid"), "/elsewhere", "relative"}},
		{func() { require.NoError(t, os.Remove(filepath.Join(dir, "new.md"))) }, []string{f.main}},
		{func() { write(t, filepath.Join(f.roots[1], "z.md"), []byte("z")) }, []string{filepath.Join(f.roots[1], "z.md"), filepath.Join(f.roots[2], "todo.md")}},
		{func() {}, []string{filepath.Join(dir, "a.txt"), filepath.Join(dir, "a.txt"), filepath.Join(dir, "..", "sub", "a.txt")}},
	}
	for i, s := range steps {
		s.edit()
		var got []string
		for k, p := range provs {
			r, err := p.Changes(ctx, abi.ChangesRequest{Cursor: cursors[k], Paths: s.paths})
			require.NoError(t, err, "step %d", i)
			cursors[k] = r.Cursor
			got = append(got, canonical(t, r))
		}
		require.JSONEq(t, got[0], got[1], "step %d: the C provider's changes differ from the Go one's", i)
		if i == 4 {
			require.Contains(t, got[0], "sub/deep/deeper/x.go", "a removed directory reports the files it held")
		}
	}
	// Without the cursor, and with a stale one, a full rescan.
	for _, c := range []string{"", "s:stale"} {
		a, err := provs[0].Changes(ctx, abi.ChangesRequest{Cursor: c, Paths: []string{filepath.Join(dir, "a.txt")}})
		require.NoError(t, err)
		b, err := provs[1].Changes(ctx, abi.ChangesRequest{Cursor: c, Paths: []string{filepath.Join(dir, "a.txt")}})
		require.NoError(t, err)
		require.Equal(t, a, b)
	}
}

// serve starts the real binary on the module over the fixture's grants
// and connects the official go-sdk client over stdio, speaking revision.
func serve(t *testing.T, wasm string, f fixture, revision string) *mcp.ClientSession {
	t.Helper()
	// 500 a page: the fixture then lists in three pages, so paging is compared too.
	args := []string{"--module", wasm, "--compile-timeout", "10m", "--page-size", "500", "--config-value", fmt.Sprint("max_file_bytes=", capBytes)}
	for _, g := range f.grants {
		args = append(args, "--allow-dir", g)
	}
	return testguest.Serve(t, 5*time.Minute, revision, args...)
}

// mcpTranscript asks the server what a client can: every list page (the
// server's cursors are signed, so only their presence counts), templates,
// every listed file and every extra URI read, completions.
func mcpTranscript(t *testing.T, cs *mcp.ClientSession, f fixture) map[string]any {
	ctx := t.Context()
	tr := map[string]any{}
	var pages []any
	var listed []string
	for cursor := ""; ; {
		res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		require.NoError(t, err)
		pages = append(pages, map[string]any{"resources": res.Resources, "more": res.NextCursor != ""})
		for _, r := range res.Resources {
			listed = append(listed, r.URI)
		}
		if cursor = res.NextCursor; cursor == "" || len(pages) > 20 {
			break
		}
	}
	tr["list"] = pages
	tr["templates"] = testguest.Record(cs.ListResourceTemplates(ctx, nil))
	sort.Strings(listed)
	for i, u := range append(listed, f.extra...) {
		if i < len(listed) && i%7 != 0 && !strings.Contains(u, "/sizes/") {
			continue // a sample of the many files, every size
		}
		tr["read "+u] = testguest.Record(cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: u}))
	}
	for _, v := range f.dirs {
		tr["complete "+v] = testguest.Record(cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "file://" + escape(f.main) + "/{+path}"},
			Argument: mcp.CompleteParamsArgument{Name: "path", Value: v},
		}))
	}
	return tr
}

// TestFilesSameOverMCP serves each provider from the real mcp-wasm binary
// with several --allow-dir and compares what the official go-sdk client
// sees, in the oldest handshake era and the newest stateless one.
func TestFilesSameOverMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the server test runs the binary")
	}
	f := newFixture(t)
	goW, cW := goWasm(t), cWasm(t)
	for _, revision := range []string{"2025-03-26", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) {
			ref := mcpTranscript(t, serve(t, goW, f, revision), f)
			require.Len(t, ref["list"], 3)
			require.JSONEq(t, canonical(t, ref), canonical(t, mcpTranscript(t, serve(t, cW, f, revision), f)), "the C files provider differs from the Go one over MCP %s", revision)
		})
	}
}
