package main

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/urfave/cli/v2"

	mcpwasm "github.com/mcp-wasm/mcp-wasm"
)

//go:embed templates
var projectTemplates embed.FS

// languages of `new`: the template directory, the SDK files copied (from
// the embedded tree, to the project), and the names the README uses.
var languages = map[string]struct {
	title, source, sdkDir string
	sdk                   map[string]string // embedded directory or file -> project path
}{
	"go": {"Go", "main.go", "mcpw-sdk", map[string]string{
		"abi": "mcpw-sdk/abi", "abi/checkkit": "mcpw-sdk/abi/checkkit",
		"guests/go/mcpw": "mcpw-sdk/guests/go/mcpw", "guests/go/mcpw/mcpwtest": "mcpw-sdk/guests/go/mcpw/mcpwtest"}},
	"c":    {"C", "NAME.c", "mcpw.h and mcpw.c", map[string]string{"guests/c/mcpw.h": "mcpw.h", "guests/c/mcpw.c": "mcpw.c"}},
	"rust": {"Rust", "src/lib.rs", "mcpw", map[string]string{"guests/rust/Cargo.toml": "mcpw/Cargo.toml", "guests/rust/src": "mcpw/src"}},
	"assemblyscript": {"AssemblyScript", "index.ts", "mcpw", map[string]string{
		"guests/assemblyscript/assembly": "mcpw/assembly", "guests/assemblyscript/index.ts": "mcpw/index.ts"}},
}

func newCommand() *cli.Command {
	return &cli.Command{
		Name:      "new",
		Usage:     "write a ready provider project: source, build, README, a test",
		ArgsUsage: "NAME",
		Description: "Writes the directory NAME (under --dir) holding a small provider in the language\n" +
			"given, the SDK it builds against (carried by this binary, so the build is offline),\n" +
			"a Makefile (npm scripts for AssemblyScript), a README with the build, check and serve\n" +
			"commands, and a test. It builds with the language's usual toolchain and passes\n" +
			"`mcp-wasm check` as written. NAME is also the provider's name and URI scheme: 1-40\n" +
			"lower-case letters, digits and '-', starting with a letter. An existing NAME is refused.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "lang", Usage: "`LANGUAGE` of the project: go, c, rust or assemblyscript"},
			&cli.StringFlag{Name: "dir", Value: ".", Usage: "directory to write the project in"},
		},
		Action: newAction,
	}
}

// projectName: a provider name, a URI scheme, a Go module path, a Rust
// crate and an npm package name alike.
var projectName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// reservedNames would clash with the SDK or a language's own crates.
var reservedNames = []string{"mcpw", "std", "core", "alloc", "test", "proc-macro", "self", "crate", "super", "abi", "file", "http", "https", "data"}

func newAction(c *cli.Context) error {
	opts := map[string]string{"lang": c.String("lang"), "dir": c.String("dir")}
	args, err := trailingFlags(c.Args().Slice(), opts)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usageError("new takes one NAME: mcp-wasm new NAME --lang go|c|rust|assemblyscript")
	}
	name, lang := args[0], opts["lang"]
	if _, ok := languages[lang]; !ok {
		return usageError("--lang %q: give one of go, c, rust, assemblyscript", lang)
	}
	if err := checkProjectName(name); err != nil {
		return usageError("%v", err)
	}
	dir := filepath.Join(opts["dir"], name)
	if _, err := os.Lstat(dir); err == nil {
		return failure(fmt.Errorf("write project %s: it exists already: choose another NAME or --dir, or remove it", dir))
	}
	if err := writeProject(dir, name, lang); err != nil {
		return failure(err)
	}
	fmt.Fprintf(c.App.Writer, "wrote %s (%s): see %s for the build, check and serve commands\n", dir, languages[lang].title, filepath.Join(dir, "README.md"))
	return nil
}

// trailingFlags reads --lang and --dir written after NAME, as in the
// form `mcp-wasm new NAME --lang go` that authors know from other tools'
// `new`; unlike other commands, new has no argument a flag could be
// mistaken for. It returns the other arguments.
func trailingFlags(args []string, opts map[string]string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") {
			rest = append(rest, args[i])
			continue
		}
		if _, ok := opts[name]; !ok {
			return nil, usageError("new: unknown flag %s: use --lang LANGUAGE and --dir DIR", args[i])
		}
		if !hasVal {
			if i+1 == len(args) {
				return nil, usageError("new: flag %s needs a value", args[i])
			}
			i++
			val = args[i]
		}
		opts[name] = val
	}
	return rest, nil
}

func checkProjectName(name string) error {
	switch {
	case !projectName.MatchString(name) || strings.HasSuffix(name, "-") || strings.Contains(name, "--"):
		return fmt.Errorf("NAME %q: use 1-40 lower-case letters, digits and single '-', starting with a letter and not ending with '-' (it is the provider's name and URI scheme)", name)
	case slices.Contains(reservedNames, name):
		return fmt.Errorf("NAME %q is taken by the SDK, a language or a common URI scheme: choose another", name)
	}
	return nil
}

// writeProject writes the project into a temporary directory beside dir
// and renames it into place, so a failure leaves nothing half written.
func writeProject(dir, name, lang string) error {
	parent := filepath.Dir(dir)
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+"-new-")
	if err != nil {
		return fmt.Errorf("write project %s: %w: check that %s exists and is writable", dir, err, parent)
	}
	defer os.RemoveAll(tmp)
	if err := fillProject(tmp, name, lang); err != nil {
		return fmt.Errorf("write project %s: %w", dir, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	// Rename refuses to replace a non-empty directory; a file or an empty
	// directory made since the check above is refused here.
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("write project %s: it exists already: choose another NAME or --dir, or remove it", dir)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("write project %s: %w", dir, err)
	}
	return nil
}

func fillProject(root, name, lang string) error {
	l := languages[lang]
	data := map[string]string{
		"Name": name, "Ident": strings.ReplaceAll(name, "-", "_"), "Lang": lang, "LangTitle": l.title,
		"Source": strings.ReplaceAll(l.source, "NAME", name), "SDKDir": l.sdkDir,
		"GoVersion": goVersion(), "ASCVersion": ascVersion(),
	}
	files := map[string][]byte{".gitignore": []byte("*.wasm\ntarget/\nnode_modules/\n")}
	render := func(tmplPath, out string) error {
		src, err := projectTemplates.ReadFile(tmplPath)
		if err != nil {
			return err
		}
		t, err := template.New(tmplPath).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return err
		}
		files[out] = b.Bytes()
		return nil
	}
	if err := render("templates/README.md.tmpl", "README.md"); err != nil {
		return err
	}
	base := "templates/" + lang
	err := fs.WalkDir(projectTemplates, base, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		out := strings.TrimSuffix(strings.TrimPrefix(p, base+"/"), ".tmpl")
		if lang == "c" && out == "main.c" {
			out = name + ".c"
		}
		return render(p, out)
	})
	if err != nil {
		return err
	}
	if err := copySDK(files, l.sdk); err != nil {
		return err
	}
	if lang == "go" {
		files["mcpw-sdk/go.mod"] = fmt.Appendf(nil, "module github.com/mcp-wasm/mcp-wasm\n\ngo %s\n", goVersion())
	}
	for p, b := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// copySDK adds the embedded SDK files to files: each source, a file or
// the files directly in a directory (tests left out), at its project path.
func copySDK(files map[string][]byte, sdk map[string]string) error {
	for src, dst := range sdk {
		entries, err := fs.ReadDir(mcpwasm.SDK, src)
		if err != nil {
			b, ferr := fs.ReadFile(mcpwasm.SDK, src)
			if ferr != nil {
				return errors.Join(err, ferr)
			}
			files[dst] = b
			continue
		}
		for _, e := range entries {
			if e.IsDir() || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			b, err := fs.ReadFile(mcpwasm.SDK, path.Join(src, e.Name()))
			if err != nil {
				return err
			}
			files[dst+"/"+e.Name()] = b
		}
	}
	return nil
}

// goVersion is the go line of the module the SDK comes from.
func goVersion() string {
	b, _ := fs.ReadFile(mcpwasm.SDK, "go.mod")
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	return "1.24"
}

// ascVersion is the AssemblyScript compiler the SDK is pinned to.
func ascVersion() string {
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	b, _ := fs.ReadFile(mcpwasm.SDK, "guests/assemblyscript/package.json")
	_ = json.Unmarshal(b, &pkg)
	if v := pkg.DevDependencies["assemblyscript"]; v != "" {
		return v
	}
	return "0.28.9"
}
