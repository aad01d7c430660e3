// Package mcpwasm_test holds the repository's policy tests: rules about the
// code as a whole that no single package can check.
package mcpwasm_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/mcp-wasm/mcp-wasm"

// Who may import what inside the module (production files; tests may
// import harnesses too). A rule names a package path, or a tree with "/...".
var (
	// harnesses build guests, fake providers or issuers, or drive load:
	// tests and tools only.
	harnesses = []string{"internal/testguest", "internal/testkit", "internal/loadtest", "server/servertest", "server/auth/authtest",
		"internal/oci/ocitest", "internal/sigpolicy/sigtest", "guests/sqlite/internal/sqlitetest", "guests/git/internal/gittest"}
	// tools are commands for developers, not the product.
	tools = []string{"cmd/mcp-wasm-load"}

	// mayImport lists, for each production package, the module packages
	// it may import; a package not listed may import none.
	mayImport = map[string][]string{
		"runtime/...": {"abi", "internal/dirwatch", "internal/hostfile", "runtime/..."},
		// The runtime's capability packages (compile, file grants, read
		// cache, egress, slots, WASI guard, ...) sit under its root and
		// never import it.
		"runtime/internal/...": {"abi", "internal/hostfile", "internal/heapsize", "runtime/internal/..."},
		"server":               {"abi", "server/auth", "internal/heapsize"},
		"server/auth":          {},
		"config":               {"abi", "runtime", "server", "internal/hostfile", "internal/oci", "internal/sigpolicy"}, // server: the expose filter's rule
		"served":               {"abi", "config", "runtime", "internal/hostfile", "internal/modsource", "internal/oci", "internal/sigpolicy"},
		"internal/metrics":     {},
		"internal/dirwatch":    {},
		"internal/gctune":      {}, // the collector's targets of a server process
		"internal/hostfile":    {}, // how the host opens an operator's files
		"internal/heapsize":    {}, // what an allocation takes on the heap, for the caches' budgets
		// Where module bytes come from: the registry client and store, the
		// signature policy, and the two joined; they know nothing of the
		// runtime, the server or the served set.
		"internal/oci":       {"abi", "internal/hostfile"},
		"internal/sigpolicy": {"internal/hostfile"},
		"internal/buildinfo": {}, // which build runs: --version, serverInfo, build_info
		"internal/modsource": {"internal/hostfile", "internal/oci", "internal/sigpolicy"},
		"guests/...":         {"abi", "abi/checkkit", "guests/..."}, // guests and their SDKs import nothing of the host
		"abi/checkkit":       {"abi"},                               // the check battery, shared by check and mcpwtest
		".":                  {},                                    // the embedded SDK sources, for mcp-wasm new
		"cmd/mcp-wasm/...": {"abi", "runtime", "server", "server/auth", "config", "served", "internal/metrics",
			"internal/oci", "internal/sigpolicy", "internal/modsource", "internal/gctune", "internal/hostfile", "internal/buildinfo", "cmd/mcp-wasm/...",
			"abi/checkkit", ".", "internal/bus"},
		"internal/bus": {"server"}, // a fleet's Redis bus, behind server.Bus
		// Verification itself (sigstore-go), linked only into the verifier
		// program: see TestSigstoreOnlyInTheVerifier.
		"internal/sigpolicy/offline": {"internal/sigpolicy", "internal/hostfile"},
		"cmd/mcp-wasm-verify":        {"internal/sigpolicy", "internal/sigpolicy/offline"},
		"abi":                        {},
	}
)

// TestImportPolicy enforces the layering: abi imports only the standard
// library; server and runtime never import each other (nor served or
// config, which build on runtime); the module sources (internal/oci,
// sigpolicy, modsource) import nothing above them; guests and their SDKs
// import nothing of the host; nothing outside cmd imports cmd; test
// harnesses and tools stay out of production packages.
func TestImportPolicy(t *testing.T) {
	files := moduleFiles(t)
	require.NotEmpty(t, files)
	checked := map[string]bool{}
	for _, f := range files {
		for _, imp := range f.imports {
			if err := allowed(f, imp); err != "" {
				t.Errorf("%s imports %s: %s", f.path, imp, err)
			}
		}
		checked[f.pkg] = true
	}
	for pkg := range mayImport {
		found := false
		for p := range checked {
			found = found || matches(p, pkg)
		}
		require.True(t, found, "policy rule %q matches no package: update the rule", pkg)
	}
}

// allowed returns "" when f may import imp, else why not.
func allowed(f goFile, imp string) string {
	if imp == module {
		imp = module + "/." // the root package
	}
	if !strings.HasPrefix(imp, module+"/") {
		if inAny(f.pkg, "abi/...", "guests/...") && !f.test && strings.Contains(strings.Split(imp, "/")[0], ".") {
			return "abi and guests build for wasip1 and import only the standard library"
		}
		return ""
	}
	imp = strings.TrimPrefix(imp, module+"/")
	switch {
	case inAny(imp, "cmd/...") && !inAny(f.pkg, "cmd/..."):
		return "nothing outside cmd imports cmd"
	case inAny(imp, harnesses...) && !f.test && !inAny(f.pkg, append(harnesses, tools...)...):
		return "test harnesses are for tests and tools, not production code"
	case f.test || inAny(f.pkg, append(harnesses, tools...)...):
		return ""
	}
	rule := "" // the most specific rule that matches
	for r := range mayImport {
		if matches(f.pkg, r) && len(r) > len(rule) {
			rule = r
		}
	}
	if rule == "" {
		return "package " + f.pkg + " has no import rule: add one to mayImport"
	}
	if may := mayImport[rule]; !inAny(imp, may...) {
		return "package " + f.pkg + " may import only " + strings.Join(may, ", ") + " of the module"
	}
	return ""
}

func inAny(pkg string, rules ...string) bool {
	for _, r := range rules {
		if matches(pkg, r) {
			return true
		}
	}
	return false
}

// matches reports whether pkg is rule, or under it for a rule "x/...".
func matches(pkg, rule string) bool {
	if tree, ok := strings.CutSuffix(rule, "/..."); ok {
		return pkg == tree || strings.HasPrefix(pkg, tree+"/")
	}
	return pkg == rule
}

// goFile is one Go file of the module and what it imports.
type goFile struct {
	path    string // relative to the repository root
	pkg     string // its package's path, relative to the module
	test    bool
	imports []string
}

// moduleFiles parses the imports of every Go file of the module, whatever
// its build tags, outside testdata, build output and hidden directories.
func moduleFiles(t *testing.T) []goFile {
	t.Helper()
	var out []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "build" || name == "node_modules" || name == "target") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		g := goFile{path: path, pkg: filepath.ToSlash(filepath.Dir(path)), test: strings.HasSuffix(name, "_test.go")}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			g.imports = append(g.imports, p)
		}
		sort.Strings(g.imports)
		out = append(out, g)
		return nil
	})
	require.NoError(t, err)
	_, err = os.Stat("go.mod")
	require.NoError(t, err, "run from the repository root")
	return out
}

// TestImportPolicy_catchesViolations: the rules refuse what they must.
func TestImportPolicy_catchesViolations(t *testing.T) {
	for _, tt := range []struct {
		file goFile
		imp  string
	}{
		{goFile{pkg: "server"}, module + "/runtime"},
		{goFile{pkg: "runtime"}, module + "/server"},
		{goFile{pkg: "runtime/internal/rootfs"}, module + "/runtime"},
		{goFile{pkg: "runtime"}, module + "/served"},
		{goFile{pkg: "server"}, module + "/served"},
		{goFile{pkg: "served"}, module + "/server"},
		{goFile{pkg: "config"}, module + "/served"},
		{goFile{pkg: "abi"}, module + "/runtime"},
		{goFile{pkg: "abi"}, "github.com/yosida95/uritemplate/v3"},
		{goFile{pkg: "guests/go/mcpw"}, module + "/runtime"},
		{goFile{pkg: "guests/notes"}, module + "/internal/metrics"},
		{goFile{pkg: "guests/go/mcpw"}, "github.com/tetratelabs/wazero"},
		{goFile{pkg: "server"}, module + "/cmd/mcp-wasm/defaultprovider"},
		{goFile{pkg: "served", test: true}, module + "/cmd/mcp-wasm/defaultprovider"},
		{goFile{pkg: "cmd/mcp-wasm"}, module + "/internal/testguest"},
		{goFile{pkg: "served"}, module + "/server/servertest"},
		{goFile{pkg: "server"}, module + "/config"},
		{goFile{pkg: "server"}, module + "/internal/oci"},
		{goFile{pkg: "runtime"}, module + "/internal/modsource"},
		{goFile{pkg: "internal/oci"}, module + "/runtime"},
		{goFile{pkg: "internal/sigpolicy"}, module + "/internal/oci"},
		{goFile{pkg: "internal/modsource"}, module + "/served"},
		{goFile{pkg: "internal/modsource"}, module + "/config"},
		{goFile{pkg: "served"}, module + "/internal/oci/ocitest"},
		{goFile{pkg: "cmd/mcp-wasm"}, module + "/internal/sigpolicy/sigtest"},
		{goFile{pkg: "cmd/mcp-wasm"}, module + "/internal/sigpolicy/offline"},
		{goFile{pkg: "served"}, module + "/internal/sigpolicy/offline"},
		{goFile{pkg: "internal/sigpolicy/offline"}, module + "/internal/oci"},
		{goFile{pkg: "newpkg"}, module + "/abi"},
	} {
		require.NotEmpty(t, allowed(tt.file, tt.imp), "%s importing %s must be refused", tt.file.pkg, tt.imp)
	}
	require.Empty(t, allowed(goFile{pkg: "served", test: true}, module+"/server"), "tests wire what production code may not")
	require.Empty(t, allowed(goFile{pkg: "cmd/mcp-wasm-load"}, module+"/internal/loadtest"), "tools use harnesses")
	require.Empty(t, allowed(goFile{pkg: "guests/files", test: true}, "github.com/stretchr/testify/require"))
}
