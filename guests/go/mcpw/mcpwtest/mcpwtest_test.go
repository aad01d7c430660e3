package mcpwtest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/abi/checkkit"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw/mcpwtest"
)

// shelf is a small provider; bug breaks it in one way.
type shelf struct {
	bug   string
	reads int
}

var books = map[string]string{"dune": "Spice.", "emma": "Matchmaking.", "ulysses": "One day."}
var order = []string{"dune", "emma", "ulysses"}

func (s *shelf) Describe() abi.Describe {
	return abi.Describe{Name: "shelf", Version: "1.0.0", URISpace: []abi.URIRoot{{Scheme: "shelf"}}}
}

func (s *shelf) List(_ context.Context, cursor string) (*abi.ListResult, error) {
	r := &abi.ListResult{}
	for _, id := range order {
		r.Resources = append(r.Resources, abi.Resource{URI: "shelf:///" + id, Name: id, MIMEType: "text/plain"})
	}
	if s.bug == "pages" {
		r.NextCursor = "again" // every page is the first one
	}
	return r, nil
}

func (s *shelf) Read(_ context.Context, uri string) (*abi.ReadResult, error) {
	s.reads++
	id := strings.TrimPrefix(uri, "shelf:///")
	text, ok := books[id]
	switch {
	case !ok && s.bug == "kind":
		return nil, mcpw.Internal("no book %q", id)
	case !ok:
		return nil, mcpw.NotFound("no book %q", id)
	case s.bug == "state":
		text = fmt.Sprintf("%s (read %d)", text, s.reads)
	case s.bug == "mime" && id == "emma":
		return &abi.ReadResult{Contents: []abi.Content{mcpw.Text(uri, "application/json", text)}}, nil
	}
	return &abi.ReadResult{Contents: []abi.Content{mcpw.Text(uri, "text/plain", text)}}, nil
}

func TestCheckPassesACorrectProvider(t *testing.T) {
	rep := mcpwtest.Check(t, func() mcpw.Provider { return &shelf{} })
	require.True(t, rep.Passed)
	require.Equal(t, 3, rep.Stats.Resources)
	require.Equal(t, "shelf 1.0.0", rep.Provider)
	for _, c := range rep.Checks {
		if c.Name == checkkit.CheckLimits || c.Name == checkkit.CheckTemplates || c.Name == checkkit.CheckChanges {
			require.Equal(t, checkkit.Skip, c.Status, c.Name)
		} else {
			require.Equal(t, checkkit.Pass, c.Status, c.Name)
		}
	}
}

func TestRunFindsWhatCheckWouldFind(t *testing.T) {
	for bug, rule := range map[string]string{
		"pages": checkkit.CheckList,
		"kind":  checkkit.CheckNotFound,
		"state": checkkit.CheckFresh,
		"mime":  checkkit.CheckContents,
	} {
		t.Run(bug, func(t *testing.T) {
			rep := mcpwtest.Run(t.Context(), func() mcpw.Provider { return &shelf{bug: bug} }, mcpwtest.Options{})
			require.False(t, rep.Passed)
			require.Contains(t, rep.Summary(), "FAIL "+rule+":")

			// Check reports it as a test failure, with the fix.
			ft := &fakeT{TB: t}
			mcpwtest.Check(ft, func() mcpw.Provider { return &shelf{bug: bug} })
			require.True(t, ft.failed)
			require.Contains(t, ft.msg, "fix: ")
		})
	}
}

// An invalid result is what the host would refuse: the SDK turns it into
// an internal error, which the battery reports where it happened.
func TestNativeRefusesWhatTheHostRefuses(t *testing.T) {
	p := mcpwtest.Native(&shelf{})
	_, err := p.Read(t.Context(), "shelf:///nobody")
	require.ErrorIs(t, err, abi.ErrNotFound)
	r, err := p.Read(t.Context(), "shelf:///dune")
	require.NoError(t, err)
	require.Equal(t, "Spice.", *r.Contents[0].Text)
	require.Equal(t, []string{abi.OpList, abi.OpRead}, p.Describe().Operations)
}

type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, args...)
}
