package abi

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestURISpace_Owns(t *testing.T) {
	space := URISpace{{Scheme: "notes"}, {Scheme: "https", Authority: "api.example.com", PathPrefix: "/v1"}, {Scheme: "s3", Authority: "*"}}
	tests := []struct {
		uri  string
		owns bool
	}{
		{"notes:///a", true},
		{"NOTES:///a", true},
		{"notes:opaque", true},
		{"https://api.example.com/v1", true},
		{"https://api.example.com/v1/x", true},
		{"https://API.example.com/v1/x", true},
		{"https://api.example.com/v10", false},
		{"https://api.example.com/v2/x", false},
		{"https://evil.com/v1/x", false},
		{"https://user@api.example.com/v1/x", false},
		{"http://api.example.com/v1/x", false},
		{"file:///etc/passwd", false},
		{"note:///a", false},
		{"notes://host/a", false},
		{"notes://user@/a", false},
		{"s3://bucket/key", true},
		{"s3:///key", true},
	}
	for _, tc := range tests {
		require.Equal(t, tc.owns, space.OwnsString(tc.uri), tc.uri)
	}
}

func TestParseURI_Rejects(t *testing.T) {
	long := "x:" + string(make([]byte, MaxURILength))
	for _, raw := range []string{"", "no-scheme", "x:a b", "x:a\x00", "x:\x7f", "x:a\u0085", long, "x:\xff", "%zz:"} {
		_, err := ParseURI(raw)
		require.ErrorIs(t, err, ErrBadURI, "%q", raw)
	}
}

func TestURIRoot_Overlaps(t *testing.T) {
	tests := []struct {
		a, b URIRoot
		want bool
	}{
		{URIRoot{Scheme: "a"}, URIRoot{Scheme: "a"}, true},
		{URIRoot{Scheme: "a"}, URIRoot{Scheme: "b"}, false},
		{URIRoot{Scheme: "h", Authority: "x"}, URIRoot{Scheme: "h", Authority: "y"}, false},
		{URIRoot{Scheme: "h"}, URIRoot{Scheme: "h", Authority: "y"}, false},
		{URIRoot{Scheme: "h", Authority: "*"}, URIRoot{Scheme: "h", Authority: "y"}, true},
		{URIRoot{Scheme: "h", Authority: "*"}, URIRoot{Scheme: "h"}, true},
		{URIRoot{Scheme: "h", PathPrefix: "/a"}, URIRoot{Scheme: "h", PathPrefix: "/a/b"}, true},
		{URIRoot{Scheme: "h", PathPrefix: "/a"}, URIRoot{Scheme: "h", PathPrefix: "/ab"}, false},
		{URIRoot{Scheme: "h", PathPrefix: "/a/"}, URIRoot{Scheme: "h", PathPrefix: "/b/"}, false},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, tc.a.Overlaps(tc.b), "%v %v", tc.a, tc.b)
		require.Equal(t, tc.want, tc.b.Overlaps(tc.a), "%v %v (swapped)", tc.b, tc.a)
	}
}

func TestValidBase64(t *testing.T) {
	for _, b := range [][]byte{{}, {0}, {0, 1}, {0, 1, 2}, {0xff, 0xfe, 0xfd, 0xfc}} {
		require.True(t, ValidBase64(base64.StdEncoding.EncodeToString(b)))
	}
	for _, s := range []string{"A", "AB=", "A===", "AB\n==", "AB-_", "QR==", "QUI=QUI=", "QUJ="} {
		_, stdErr := base64.StdEncoding.Strict().DecodeString(s)
		require.Error(t, stdErr, "fixture %q must be invalid for the stdlib too", s)
		require.False(t, ValidBase64(s), s)
	}
	// The stdlib skips newlines even in strict mode; blobs must not carry them.
	require.False(t, ValidBase64("QUJD\n"))
	require.False(t, ValidBase64("QU\r\nJD"))
}

func TestReadResult_Validate(t *testing.T) {
	space := URISpace{{Scheme: "n"}}
	text, blob, bad := "t", "AAEC", "AA=="+"x"
	tests := []struct {
		name string
		r    ReadResult
		want error
	}{
		{"text", ReadResult{Contents: []Content{{URI: "n:a", Text: &text}}}, nil},
		{"blob", ReadResult{Contents: []Content{{URI: "n:a", Blob: &blob}}}, nil},
		{"empty contents", ReadResult{}, ErrInvalid},
		{"both", ReadResult{Contents: []Content{{URI: "n:a", Text: &text, Blob: &blob}}}, ErrInvalid},
		{"neither", ReadResult{Contents: []Content{{URI: "n:a"}}}, ErrInvalid},
		{"foreign uri", ReadResult{Contents: []Content{{URI: "file:///etc/passwd", Text: &text}}}, ErrForeignURI},
		{"bad base64", ReadResult{Contents: []Content{{URI: "n:a", Blob: &bad}}}, ErrInvalid},
		{"bad mime", ReadResult{Contents: []Content{{URI: "n:a", Text: &text, MIMEType: "nonsense"}}}, ErrInvalid},
		{"bad cache", ReadResult{Contents: []Content{{URI: "n:a", Text: &text}}, Cache: &CacheHint{TTLMs: 1, Scope: "world"}}, ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.Validate(space)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.True(t, errors.Is(err, tc.want), "got %v", err)
		})
	}
}

func TestDescribe_Validate(t *testing.T) {
	good := func() Describe {
		return Describe{Name: "notes", Version: "1", URISpace: []URIRoot{{Scheme: "notes"}}, Operations: []string{"read"}}
	}
	require.NoError(t, func() *Describe { d := good(); return &d }().Validate())
	mutations := map[string]func(*Describe){
		"bad name":      func(d *Describe) { d.Name = "Notes!" },
		"no version":    func(d *Describe) { d.Version = "" },
		"no uri space":  func(d *Describe) { d.URISpace = nil },
		"upper scheme":  func(d *Describe) { d.URISpace[0].Scheme = "Notes" },
		"bad authority": func(d *Describe) { d.URISpace[0].Authority = "a/b" },
		"dotdot prefix": func(d *Describe) { d.URISpace[0].PathPrefix = "/a/../b" },
		"unknown op":    func(d *Describe) { d.Operations = []string{"write"} },
		"dup op":        func(d *Describe) { d.Operations = []string{"read", "read"} },
		"fs relative":   func(d *Describe) { d.Requests = &Requests{Filesystem: []FSRequest{{Path: "data"}}} },
		"bad key":       func(d *Describe) { d.Requests = &Requests{Config: []ConfigRequest{{Key: "a b"}}} },
		"http ftp":      func(d *Describe) { d.Requests = &Requests{HTTP: []HTTPRequest{{Prefix: "ftp://x/"}}} },
	}
	for name, mutate := range mutations {
		d := good()
		mutate(&d)
		require.ErrorIs(t, d.Validate(), ErrInvalid, name)
	}
}

func TestListResult_Validate(t *testing.T) {
	space := URISpace{{Scheme: "n"}}
	neg, p2 := int64(-1), 1.5
	bad := map[string]ListResult{
		"foreign":       {Resources: []Resource{{URI: "m:a", Name: "a"}}},
		"no name":       {Resources: []Resource{{URI: "n:a"}}},
		"negative size": {Resources: []Resource{{URI: "n:a", Name: "a", Size: &neg}}},
		"priority":      {Resources: []Resource{{URI: "n:a", Name: "a", Annotations: &Annotations{Priority: &p2}}}},
		"audience":      {Resources: []Resource{{URI: "n:a", Name: "a", Annotations: &Annotations{Audience: []string{"robot"}}}}},
		"lastModified":  {Resources: []Resource{{URI: "n:a", Name: "a", Annotations: &Annotations{LastModified: "yesterday"}}}},
		"icon http":     {Resources: []Resource{{URI: "n:a", Name: "a", Icons: []Icon{{Src: "http://x/i.png"}}}}},
		"cursor":        {NextCursor: string(make([]byte, MaxCursorLength+1))},
	}
	for name, r := range bad {
		require.ErrorIs(t, r.Validate(space), ErrInvalid, name)
	}
	ok := ListResult{Resources: []Resource{{URI: "n:a", Name: "a", Annotations: &Annotations{Audience: []string{"user"}, LastModified: "2026-01-02T03:04:05Z"}}}}
	require.NoError(t, ok.Validate(space))
}

func TestSmallValidators(t *testing.T) {
	total := 0
	require.ErrorIs(t, (&CompleteResult{Values: []string{"a"}, Total: &total}).Validate(), ErrInvalid)
	require.ErrorIs(t, (&CompleteResult{Values: make([]string, 101)}).Validate(), ErrInvalid)
	require.ErrorIs(t, (&ChangesResult{Updated: []string{"m:a"}}).Validate(URISpace{{Scheme: "n"}}), ErrForeignURI)
	require.ErrorIs(t, (&Error{Code: "teapot"}).Validate(), ErrInvalid)
	require.ErrorIs(t, (&TemplatesResult{ResourceTemplates: []ResourceTemplate{{URITemplate: "n:{x}"}}}).Validate(URISpace{{Scheme: "n"}}), ErrInvalid)
	require.NoError(t, (&Error{Code: CodeNotFound}).Validate())
}

func TestKindOf(t *testing.T) {
	require.ErrorIs(t, KindOf(CodeNotFound), ErrNotFound)
	require.ErrorIs(t, KindOf(CodeInvalidParams), ErrInvalidParams)
	require.ErrorIs(t, KindOf(CodeInternal), ErrProviderInternal)
	require.ErrorIs(t, KindOf("teapot"), ErrProviderInternal, "an unknown code is never mistaken for a client's fault")
}

func TestConflicts(t *testing.T) {
	d := func(name string, roots ...URIRoot) Describe { return Describe{Name: name, URISpace: roots} }
	notes, files := URIRoot{Scheme: "notes"}, URIRoot{Scheme: "file", PathPrefix: "/a/"}
	require.Empty(t, Conflicts([]Describe{d("a", notes), d("b", files), d("c", URIRoot{Scheme: "file", PathPrefix: "/b/"})}))
	require.Empty(t, Conflicts(nil))
	got := Conflicts([]Describe{d("a", notes), d("b", files), d("a", URIRoot{Scheme: "file", PathPrefix: "/a/x/"})})
	require.Equal(t, []Conflict{
		{A: 0, B: 2, SameName: true, Name: "a"},
		{A: 1, B: 2, RootA: files, RootB: URIRoot{Scheme: "file", PathPrefix: "/a/x/"}},
	}, got)
	require.False(t, got[0].Overlap())
	require.True(t, got[1].Overlap())
	both := Conflicts([]Describe{d("a", notes), d("a", URIRoot{Scheme: "NOTES"})})
	require.Len(t, both, 2, "one name and one overlap: both reported")
}
