package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Guest text that reaches the operator's terminal. The puppet guest
// (testdata/puppet.wat) answers each operation with a payload the test
// writes, so every field can carry hostile text.

// hostile are strings that take over or mislead a terminal: CSI sequences
// (clear, recolour), an OSC 52 clipboard write, a window-title OSC, C1 CSI,
// a bare CR that overwrites the line, BiDi override and isolate, the line
// separator, zero-width space, BOM, a tag character, DEL.
var hostile = map[string]string{
	"csi":      "\x1b[2J\x1b[31mred",
	"osc52":    "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07",
	"title":    "\x1b]0;owned\x1b\\",
	"c1 csi":   "\u009b31m",
	"cr":       "ok\rEVIL",
	"bidi rlo": "\u202egnp.exe",
	"bidi lri": "\u2066x\u2069",
	"line sep": "a\u2028b",
	"zwsp":     "a\u200bb",
	"bom":      "\ufeffa",
	"tag":      "a\U000E0041",
	"del":      "a\x7f",
}

// allHostile joins every hostile string into one free-text value.
func allHostile() string {
	var parts []string
	for _, name := range sorted(keys(hostile)) {
		parts = append(parts, name+"="+hostile[name])
	}
	return strings.Join(parts, " | ")
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func puppetModule() string { return filepath.Join("testdata", "puppet.wasm") }

func puppetDescribe() abi.Describe {
	return abi.Describe{Name: "puppet", Version: "1.0.0", URISpace: abi.URISpace{{Scheme: "x"}},
		Operations: []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete, abi.OpChanges}}
}

// puppet hands the payloads to the puppet through environment variables
// and returns the grant flags that pass them on. An operation without a
// payload gets a valid one.
func puppet(t *testing.T, payloads map[string]any) []string {
	t.Helper()
	defaults := map[string]any{
		"describe": puppetDescribe(), "list": abi.ListResult{Resources: []abi.Resource{}},
		"templates": abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{}},
		"read":      abi.ReadResult{Contents: []abi.Content{{URI: "x:///a", Text: new("a")}}},
		"complete":  abi.CompleteResult{Values: []string{}}, "changes": abi.ChangesResult{},
	}
	var flags []string
	for op, def := range defaults {
		p, ok := payloads[op]
		if !ok {
			p = def
		}
		js, ok := p.(string) // a raw payload, such as "!{...}" for an error
		if !ok {
			b, err := json.Marshal(p)
			require.NoError(t, err)
			js = string(b)
		}
		env := "MCPW_PUPPET_" + strings.ToUpper(op)
		t.Setenv(env, js)
		flags = append(flags, "--config-env", op+"="+env)
	}
	return flags
}

// requireNoRawControl fails if out holds a control or format character
// other than the newlines and tabs of the CLI's own layout (and CR before
// LF, which moves nothing), judged by Go's Unicode tables, not abi's.
func requireNoRawControl(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if r == '\n' || r == '\t' || r == '\r' && strings.HasPrefix(out[i+1:], "\n") {
			continue
		}
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			t.Fatalf("%s: raw U+%04X at byte %d reaches the terminal:\n%q", what, r, i, out)
		}
	}
}

// TestGuestText_LabelsRefused: identifiers holding a control or format
// character are refused at the ABI boundary, by inspect, call and
// validate alike, and nothing of them reaches the terminal.
func TestGuestText_LabelsRefused(t *testing.T) {
	for name, bad := range hostile {
		cases := []struct {
			field    string
			payloads map[string]any
			args     []string // after the module
		}{
			{"version", map[string]any{"describe": func() abi.Describe { d := puppetDescribe(); d.Version = "1.0" + bad; return d }()}, []string{"describe"}},
			{"filesystem path", map[string]any{"describe": func() abi.Describe {
				d := puppetDescribe()
				d.Requests = &abi.Requests{Filesystem: []abi.FSRequest{{Path: "/data" + bad}}}
				return d
			}()}, []string{"describe"}},
			{"http prefix", map[string]any{"describe": func() abi.Describe {
				d := puppetDescribe()
				d.Requests = &abi.Requests{HTTP: []abi.HTTPRequest{{Prefix: "https://api.example.com/" + bad}}}
				return d
			}()}, []string{"describe"}},
			{"resource uri", map[string]any{"list": abi.ListResult{Resources: []abi.Resource{{URI: "x:///a" + bad, Name: "a"}}}}, []string{"list"}},
			{"content uri", map[string]any{"read": abi.ReadResult{Contents: []abi.Content{{URI: "x:///a" + bad, Text: new("a")}}}}, []string{"read", "x:///a"}},
			{"updated uri", map[string]any{"changes": abi.ChangesResult{Updated: []string{"x:///a" + bad}}}, []string{"changes"}},
		}
		for _, tc := range cases {
			t.Run(name+"/"+tc.field, func(t *testing.T) {
				flags := puppet(t, tc.payloads)
				code, out, errOut := runCLI(t, append(append(append([]string{"call"}, flags...), puppetModule()), tc.args...)...)
				require.Equal(t, 1, code, "call must fail:\n%s%s", out, errOut)
				require.Contains(t, errOut, "invalid")
				requireNoRawControl(t, "call", out+errOut)
				if tc.args[0] == "describe" {
					code, out, errOut = runCLI(t, append(append([]string{"inspect"}, flags...), puppetModule())...)
					require.Equal(t, 1, code, "inspect must reject:\n%s%s", out, errOut)
					require.Contains(t, out, "REJECTED")
					requireNoRawControl(t, "inspect", out+errOut)
				}
			})
		}
	}
}

// TestGuestText_ValidateRefusesVersion: validate loads the module as serve
// would; a version with an escape sequence fails it, and its summary never
// prints one.
func TestGuestText_ValidateRefusesVersion(t *testing.T) {
	d := puppetDescribe()
	d.Version = "1.0" + hostile["osc52"]
	puppet(t, map[string]any{"describe": d})
	dir := t.TempDir()
	wasm, err := os.ReadFile(puppetModule())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "puppet.wasm"), wasm, 0o644))
	cfg := `{"providers": [{"module": "puppet.wasm", "grants": {"configEnv": {` +
		`"describe": "MCPW_PUPPET_DESCRIBE", "list": "MCPW_PUPPET_LIST"}}}]}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(cfg), 0o644))
	code, out, errOut := runCLI(t, "validate", "--config", filepath.Join(dir, "mcp.json"))
	require.Equal(t, 1, code, out+errOut)
	require.Contains(t, errOut, "version")
	requireNoRawControl(t, "validate", out+errOut)
}

// freeTextPayloads put hostile text in every free-text field a guest
// returns: these cannot be refused (a file name is a resource name), so
// the CLI escapes them.
func freeTextPayloads(text string) map[string]any {
	d := puppetDescribe()
	d.Title, d.Description = text, text
	d.Requests = &abi.Requests{Filesystem: []abi.FSRequest{{Path: "/data", Reason: text}},
		Config: []abi.ConfigRequest{{Key: "k", Reason: text}}, HTTP: []abi.HTTPRequest{{Prefix: "https://api.example.com/", Reason: text}}}
	body := "line one\nline two\r\nline three " + text
	return map[string]any{
		"describe":  d,
		"list":      abi.ListResult{Resources: []abi.Resource{{URI: "x:///a", Name: text, Title: text, Description: text}}, NextCursor: text},
		"templates": abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{{URITemplate: "x:///{id}", Name: text, Title: text, Description: text}}, NextCursor: text},
		"read":      abi.ReadResult{Contents: []abi.Content{{URI: "x:///a", Text: &body}, {URI: "x:///b", Text: &text}}},
		"complete":  abi.CompleteResult{Values: []string{text, "plain"}},
		"changes":   abi.ChangesResult{Cursor: text},
	}
}

// TestGuestText_FreeTextEscaped: every call operation and inspect print
// free text with its control and format characters as visible escapes;
// a text content keeps its lines.
func TestGuestText_FreeTextEscaped(t *testing.T) {
	text := allHostile()
	flags := puppet(t, freeTextPayloads(text))
	runs := map[string][]string{
		"inspect":   append(append([]string{"inspect"}, flags...), puppetModule()),
		"describe":  append(append([]string{"call"}, flags...), puppetModule(), "describe"),
		"list":      append(append([]string{"call"}, flags...), puppetModule(), "list"),
		"templates": append(append([]string{"call"}, flags...), puppetModule(), "templates"),
		"read":      append(append([]string{"call"}, flags...), puppetModule(), "read", "x:///a"),
		"complete":  append(append([]string{"call"}, flags...), puppetModule(), "complete", "x:///{id}", "id", "a"),
		"changes":   append(append([]string{"call"}, flags...), puppetModule(), "changes"),
	}
	for name, args := range runs {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(t, args...)
			require.Equal(t, 0, code, errOut)
			requireNoRawControl(t, name, out+errOut)
			require.Contains(t, out, `\x1b[`, "the escape is shown, not dropped")
		})
	}
	_, out, _ := runCLI(t, runs["read"]...)
	require.Contains(t, out, "line one\nline two\r\nline three ", "text keeps its lines")
	for _, want := range []string{`\x1b[2J\x1b[31mred`, `\x1b]52;c;`, `\u009b31m`, `ok\rEVIL`, `\u202egnp.exe`, `a\u2028b`, `a\U000e0041`, `a\x7f`} {
		require.Contains(t, out, want)
	}
}

// TestGuestText_ErrorMessage: a guest's error message reaches the
// operator's terminal without its escape sequences.
func TestGuestText_ErrorMessage(t *testing.T) {
	msg, err := json.Marshal(abi.Error{Code: abi.CodeNotFound, Message: allHostile()})
	require.NoError(t, err)
	flags := puppet(t, map[string]any{"read": "!" + string(msg)})
	code, out, errOut := runCLI(t, append(append([]string{"call"}, flags...), puppetModule(), "read", "x:///a")...)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "not found")
	requireNoRawControl(t, "error", out+errOut)
}

// TestGuestText_JSONOutput: --json output is JSON whose strings escape
// every control and format character (encoding/json leaves DEL, C1 and
// BiDi controls raw), and decodes to exactly what the guest sent.
func TestGuestText_JSONOutput(t *testing.T) {
	text := allHostile()
	flags := puppet(t, freeTextPayloads(text))
	for _, op := range [][]string{{"describe"}, {"list"}, {"templates"}, {"read", "x:///a"}, {"complete", "x:///{id}", "id", "a"}, {"changes"}} {
		t.Run(op[0], func(t *testing.T) {
			code, out, errOut := runCLI(t, append(append(append([]string{"call", "--json"}, flags...), puppetModule()), op...)...)
			require.Equal(t, 0, code, errOut)
			requireNoRawControl(t, op[0], out)
			require.Contains(t, out, `\u202e`)
			var v any
			require.NoError(t, json.Unmarshal([]byte(out), &v))
			require.Contains(t, collectStrings(v), text, "the JSON decodes to the guest's exact text")
		})
	}
	code, out, errOut := runCLI(t, append(append([]string{"inspect", "--json"}, flags...), puppetModule())...)
	require.Equal(t, 0, code, errOut)
	requireNoRawControl(t, "inspect --json", out)
	var rep struct{ Describe abi.Describe }
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Equal(t, text, rep.Describe.Title)
	require.Equal(t, text, rep.Describe.Requests.HTTP[0].Reason)
}

// collectStrings returns every string in a decoded JSON value.
func collectStrings(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, x := range v {
			out = append(out, collectStrings(x)...)
		}
	case map[string]any:
		for _, x := range v {
			out = append(out, collectStrings(x)...)
		}
	}
	return out
}

// TestPuppetWasmMatchesWat: the committed puppet.wasm is puppet.wat.
func TestPuppetWasmMatchesWat(t *testing.T) {
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("wat2wasm not found (apt-get install -y wabt); CI is set, so this is a failure")
		}
		t.Skip("wat2wasm not found: install wabt to check testdata/puppet.wasm")
	}
	out := filepath.Join(t.TempDir(), "puppet.wasm")
	b, err := exec.Command("wat2wasm", filepath.Join("testdata", "puppet.wat"), "-o", out).CombinedOutput()
	require.NoError(t, err, string(b))
	want, err := os.ReadFile(out)
	require.NoError(t, err)
	got, err := os.ReadFile(puppetModule())
	require.NoError(t, err)
	require.Equal(t, want, got, "regenerate: wat2wasm testdata/puppet.wat -o testdata/puppet.wasm")
}
