package checkkit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// fake is a small provider with one switch per bug the battery must
// catch. It validates its output the way a host does, so the battery sees
// what it would see through the runtime.
type fake struct {
	bug   string
	reads int // hidden state, for the "state" bug
}

const fakeTmpl = "fake:///items/{id}"

var fakeItems = []struct{ id, mime, text string }{
	{"a", "text/plain", "alpha"}, {"b", "application/json", `{"b":1}`}, {"c", "text/markdown", "# c"},
	{"d", "text/plain", "delta"}, {"e", "text/plain", ""},
}

func (f *fake) Describe() abi.Describe {
	return abi.Describe{Name: "fake", Version: "1.0.0", URISpace: []abi.URIRoot{{Scheme: "fake"}},
		Operations: []string{abi.OpList, abi.OpTemplates, abi.OpRead, abi.OpComplete, abi.OpChanges}}
}

func (f *fake) List(_ context.Context, cursor string) (*abi.ListResult, error) {
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil {
			return nil, fmt.Errorf("%w: bad cursor", abi.ErrInvalidParams)
		}
		start = n
	}
	if f.bug == "endless" {
		return &abi.ListResult{Resources: []abi.Resource{{URI: "fake:///items/a" + strconv.Itoa(start), Name: "x"}},
			NextCursor: strconv.Itoa(start + 1)}, nil
	}
	end := min(start+2, len(fakeItems))
	res := &abi.ListResult{}
	for _, it := range fakeItems[start:end] {
		size := int64(len(it.text))
		if f.bug == "size" && it.id == "a" {
			size = 99
		}
		mime := it.mime
		if f.bug == "mime" && it.id == "d" {
			mime = "image/png"
		}
		res.Resources = append(res.Resources, abi.Resource{URI: "fake:///items/" + it.id, Name: it.id, MIMEType: mime, Size: &size})
	}
	if f.bug == "unreadable" && start == 0 {
		res.Resources = append(res.Resources, abi.Resource{URI: "fake:///items/ghost", Name: "ghost"})
	}
	if end < len(fakeItems) {
		res.NextCursor = strconv.Itoa(end)
		if f.bug == "repeat" && start == 2 {
			res.NextCursor = "1" // page 3 starts at b again
		}
		if f.bug == "loop" && start == 2 {
			res.NextCursor = "2"
		}
	}
	return res, res.Validate(abi.URISpace(f.Describe().URISpace))
}

func (f *fake) Templates(_ context.Context, cursor string) (*abi.TemplatesResult, error) {
	return &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{{URITemplate: fakeTmpl, Name: "item"}}}, nil
}

func (f *fake) Read(_ context.Context, uri string) (*abi.ReadResult, error) {
	f.reads++
	id, _ := strings.CutPrefix(uri, "fake:///items/")
	if f.bug == "drill" && id == "d%2Fa" {
		text := "in d"
		return &abi.ReadResult{Contents: []abi.Content{{URI: uri, Text: &text}}}, nil
	}
	for _, it := range fakeItems {
		if it.id != id {
			continue
		}
		text := it.text
		if f.bug == "state" && id == "a" {
			text = fmt.Sprintf("alph%d", f.reads%10) // same size, other bytes
		}
		if f.bug == "json" && id == "b" {
			text = "not json"
		}
		return &abi.ReadResult{Contents: []abi.Content{{URI: uri, MIMEType: it.mime, Text: &text}}}, nil
	}
	if f.bug == "kind" {
		return nil, fmt.Errorf("%w: no such item", abi.ErrProviderInternal)
	}
	if f.bug == "trap" {
		return nil, fmt.Errorf("%w: unreachable", abi.ErrTrap)
	}
	return nil, fmt.Errorf("%w: no item %q", abi.ErrNotFound, uri)
}

func (f *fake) Complete(_ context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if f.bug == "complete" {
		return &abi.CompleteResult{Values: []string{"zzz"}}, nil
	}
	if f.bug == "drill" { // a path: "d/" is a step towards "d/a"
		if req.Argument.Value == "" {
			return &abi.CompleteResult{Values: []string{"d/"}}, nil
		}
		return &abi.CompleteResult{Values: []string{"d/a"}}, nil
	}
	var vals []string
	for _, it := range fakeItems {
		if strings.HasPrefix(it.id, req.Argument.Value) {
			vals = append(vals, it.id)
		}
	}
	return &abi.CompleteResult{Values: vals}, nil
}

func (f *fake) Changes(_ context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error) {
	switch f.bug {
	case "growing":
		return &abi.ChangesResult{Cursor: req.Cursor + "x", Updated: []string{"fake:///items/a"}}, nil
	case "nocursor":
		return &abi.ChangesResult{}, nil
	case "memcursor":
		// A cursor that names a slot of this instance's memory.
		if req.Cursor != "" && req.Cursor != strconv.Itoa(f.reads) {
			return nil, fmt.Errorf("%w: unknown cursor", abi.ErrInvalidParams)
		}
		return &abi.ChangesResult{Cursor: strconv.Itoa(f.reads)}, nil
	}
	if req.Cursor == "" {
		return &abi.ChangesResult{Cursor: "v1"}, nil
	}
	if req.Cursor != "v1" {
		return nil, fmt.Errorf("%w: bad cursor", abi.ErrInvalidParams)
	}
	return &abi.ChangesResult{Cursor: "v1"}, nil
}

func subject(bug string) Subject {
	return Subject{
		Provider: &fake{bug: bug},
		Fresh: func(context.Context) (Provider, error) {
			return freshEach(func() Provider { return &fake{bug: bug} }), nil
		},
		Exports: []string{"memory", abi.ExportDescribe, abi.ExportList, abi.ExportTemplates, abi.ExportRead, abi.ExportComplete, abi.ExportChanges},
		Timeout: time.Hour,
	}
}

// freshEach makes every call on a new provider.
type freshEach func() Provider

func (f freshEach) Describe() abi.Describe { return f().Describe() }
func (f freshEach) List(ctx context.Context, c string) (*abi.ListResult, error) {
	return f().List(ctx, c)
}
func (f freshEach) Templates(ctx context.Context, c string) (*abi.TemplatesResult, error) {
	return f().Templates(ctx, c)
}
func (f freshEach) Read(ctx context.Context, u string) (*abi.ReadResult, error) {
	return f().Read(ctx, u)
}
func (f freshEach) Complete(ctx context.Context, r abi.CompleteRequest) (*abi.CompleteResult, error) {
	return f().Complete(ctx, r)
}
func (f freshEach) Changes(ctx context.Context, r abi.ChangesRequest) (*abi.ChangesResult, error) {
	return f().Changes(ctx, r)
}

func failed(r *Report) []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == Fail {
			out = append(out, c.Name)
		}
	}
	return out
}

func TestRunGoodProviderPasses(t *testing.T) {
	r := Run(context.Background(), subject(""), Options{})
	require.True(t, r.Passed, "%+v", r.Checks)
	require.Len(t, r.Checks, 10)
	for _, c := range r.Checks {
		require.Equal(t, Pass, c.Status, "%s: %+v", c.Name, c)
	}
	require.Equal(t, 5, r.Stats.Resources)
	require.Equal(t, 1, r.Stats.Templates)
	require.Equal(t, 6, r.Stats.Reads) // five listed, one through the template
}

func TestRunNamesTheRuleABugBreaks(t *testing.T) {
	for _, tc := range []struct {
		bug, rule, why string
	}{
		{"repeat", CheckList, "already listed on page 2"},
		{"loop", CheckList, "already returned by page 1"},
		{"endless", CheckList, "does not end"},
		{"unreadable", CheckRead, "fake:///items/ghost"},
		{"kind", CheckNotFound, "answered internal"},
		{"trap", CheckNotFound, "answered trap"},
		{"mime", CheckContents, `but list said "image/png"`},
		{"size", CheckContents, "list says size 99, the contents are 5 bytes"},
		{"json", CheckContents, "not valid JSON"},
		{"complete", CheckTemplates, `"fake:///items/zzz"`},
		{"state", CheckFresh, "the result differs"},
		{"growing", CheckChanges, "the cursor grew at every poll"},
		{"nocursor", CheckChanges, "no cursor"},
		{"memcursor", CheckChanges, "on a fresh instance"},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			r := Run(context.Background(), subject(tc.bug), Options{MaxPages: 50})
			require.False(t, r.Passed)
			require.Contains(t, failed(r), tc.rule)
			var text string
			for _, c := range r.Checks {
				if c.Name == tc.rule {
					for _, p := range c.Problems {
						text += p.What + ": " + p.Why + " / " + p.Fix + "\n"
						require.NotEmpty(t, p.Fix)
					}
				}
			}
			require.Contains(t, text, tc.why)
		})
	}
}

// A completion may offer a step towards a value (a directory of a path):
// the battery completes on it, as a client would, and reads what it finds.
func TestTemplatesDrillIntoPartialValues(t *testing.T) {
	r := Run(context.Background(), subject("drill"), Options{})
	require.True(t, r.Passed, "%+v", r.Checks)
	require.Equal(t, 7, r.Stats.Reads) // five listed, "d%2F" (not found), then "d%2Fa"
	require.Equal(t, Pass, r.Checks[4].Status)
}

func TestDescribeMustMatchExports(t *testing.T) {
	s := subject("")
	s.Exports = []string{"memory", abi.ExportDescribe, abi.ExportList, abi.ExportRead}
	r := Run(context.Background(), s, Options{})
	require.Equal(t, []string{CheckDescribe}, failed(r))
	require.Contains(t, r.Checks[0].Problems[0].Why, "does not export mcpw_v1_templates")
}

func TestLimits(t *testing.T) {
	s := subject("")
	s.Timeout = time.Nanosecond
	s.MemoryLimit, s.MemoryHigh = 64<<20, func() uint64 { return 40 << 20 }
	r := Run(context.Background(), s, Options{})
	require.Equal(t, []string{CheckLimits}, failed(r))
	require.Len(t, r.Checks[9].Problems, 2)
	require.Contains(t, r.Checks[9].Problems[1].Why, "40.0 MiB, over half the 64.0 MiB limit")
}

func TestWithoutFreshOrLimitsTheRulesSkip(t *testing.T) {
	s := subject("state")
	s.Fresh, s.Timeout = nil, 0
	r := Run(context.Background(), s, Options{})
	require.True(t, r.Passed, "%+v", r.Checks)
	for _, c := range r.Checks {
		if c.Name == CheckFresh || c.Name == CheckLimits {
			require.Equal(t, Skip, c.Status)
			require.NotEmpty(t, c.Reason)
		}
	}
}

func TestExpand(t *testing.T) {
	for _, tc := range []struct{ tmpl, want string }{
		{"notes:///{id}", "notes:///a%2Fb%20c"},
		{"notes:///{+id}", "notes:///a/b%20c"},
		{"x:{/id,n}", "x:/a%2Fb%20c/7"},
		{"x:///q{?id,n,none}", "x:///q?id=a%2Fb%20c&n=7"},
		{"x:///{id:3}", "x:///a%2Fb"},
		{"x:///{#n}", "x:///#7"},
	} {
		got, err := expand(tc.tmpl, map[string]string{"id": "a/b c", "n": "7"})
		require.NoError(t, err)
		require.Equal(t, tc.want, got, tc.tmpl)
	}
	_, err := expand("x:///{id", nil)
	require.Error(t, err)
	vars, err := templateVars("x:///{a}/{b,a}{?c*}")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, vars)
}
