package abi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/yosida95/uritemplate/v3"
)

func TestCheckTemplate(t *testing.T) {
	scheme := URISpace{{Scheme: "notes"}}
	auth := URISpace{{Scheme: "https", Authority: "api.example.com"}}
	prefix := URISpace{{Scheme: "file", PathPrefix: "/srv/data"}}
	slash := URISpace{{Scheme: "file", PathPrefix: "/srv/"}}
	anyAuth := URISpace{{Scheme: "test", Authority: AnyAuthority}}
	anyAuthPrefix := URISpace{{Scheme: "s3", Authority: AnyAuthority, PathPrefix: "/pub/"}}
	two := URISpace{{Scheme: "notes"}, {Scheme: "notes", Authority: "other"}}
	syntax := ErrInvalid // and not ErrForeignURI
	tests := []struct {
		name    string
		tmpl    string
		space   URISpace
		wantErr error
	}{
		{"scheme only", "notes:///{id}", scheme, nil},
		{"opaque", "notes:{id}", scheme, nil},
		{"opaque, two expressions", "notes:{a}{b}", scheme, nil},
		{"plain uri", "notes:///a", scheme, nil},
		{"every operator", "notes:///{+a}{#b}{.c}{/d}{;e}{?f,g}{&h}", scheme, nil},
		{"modifiers", "notes:///{a:3}/{b*}", scheme, nil},
		{"other scheme", "file:///{id}", scheme, ErrForeignURI},
		{"scheme from expression", "{scheme}:///x", scheme, ErrForeignURI},
		{"scheme extended", "notes{x}:///a", scheme, ErrForeignURI},
		{"no scheme", "notes{x}", scheme, ErrForeignURI},
		{"authority fixed", "https://api.example.com/{+path}", auth, nil},
		{"authority case", "https://API.example.com/v1/{id}", auth, nil},
		{"authority open", "https://api.example.com{+rest}", auth, ErrForeignURI},
		{"authority other", "https://evil.example/{id}", auth, ErrForeignURI},
		{"authority userinfo", "https://x@api.example.com/{id}", auth, ErrForeignURI},
		{"authority missing", "https:{+rest}", auth, ErrForeignURI},
		{"prefix below", "file:///srv/data/{+path}", prefix, nil},
		{"prefix exact with query", "file:///srv/data?q={q}", prefix, nil},
		{"prefix runs on", "file:///srv/data{+path}", prefix, ErrForeignURI},
		{"prefix sibling", "file:///srv/database/{id}", prefix, ErrForeignURI},
		{"prefix above", "file:///srv/{+path}", prefix, ErrForeignURI},
		{"slash prefix", "file:///srv/{+path}", slash, nil},
		{"slash prefix run on", "file:///srv/x{id}", slash, nil},
		{"no authority root, a host", "file://host/srv/{id}", slash, ErrForeignURI},
		{"no authority root, open host", "file://{host}/srv/{id}", slash, ErrForeignURI},
		{"any authority, fixed", "test://template/{id}/data", anyAuth, nil},
		{"any authority, open", "test://{bucket}/data", anyAuth, nil},
		{"any authority, not written", "test:{x}", anyAuth, ErrForeignURI},
		{"any authority, prefix below", "s3://bucket/pub/{key}", anyAuthPrefix, nil},
		{"any authority, prefix above", "s3://bucket/{key}", anyAuthPrefix, ErrForeignURI},
		{"any authority, open with prefix", "s3://{bucket}/pub/{key}", anyAuthPrefix, ErrForeignURI},
		{"any authority, other scheme", "file://x/{id}", anyAuth, ErrForeignURI},

		// A root without an authority: no value may start one ("//host"),
		// which could be another provider's (two: notes://other).
		{"reserved after the colon", "notes:{+x}", two, ErrForeignURI},
		{"reserved after one slash", "notes:/{+x}", two, ErrForeignURI},
		{"path after one slash", "notes:/{/x}", two, ErrForeignURI},
		{"two path segments, the first empty", "notes:{/x,y}", two, ErrForeignURI},
		{"a vanishing expression, then reserved", "notes:{a}{+b}", two, ErrForeignURI},
		{"a vanishing expression, then a literal host", "notes:{a}//other/x", two, ErrForeignURI},
		{"a vanishing path, then a literal slash", "notes:/{/a}/x", two, ErrForeignURI},
		{"simple after one slash", "notes:/{x}", two, nil},
		{"path after the colon", "notes:{/x}", two, nil},
		{"exploded path after the colon", "notes:{/x*}", two, ErrForeignURI},
		{"reserved after a segment", "notes:/a{+x}", two, nil},
		{"reserved after three slashes", "notes:///{+x}", two, nil},
		{"fragment", "notes:{#x}", two, nil},
		{"literal host of the other root", "notes://other/{+x}", two, nil},

		{"bad syntax", "notes:///{id", scheme, syntax},
		{"reserved operator", "notes:///{@id}", scheme, syntax},
		{"empty expression", "notes:///{}", scheme, syntax},
		{"prefix 0", "notes:///{id:0}", scheme, syntax},
		{"prefix 10000", "notes:///{id:10000}", scheme, syntax},
		{"prefix and explode", "notes:///{id:3*}", scheme, syntax},
		{"dot varname", "notes:///{.}", scheme, syntax},
		{"double dot varname", "notes:///{a..b}", scheme, syntax},
		{"space", "notes:///a b", scheme, syntax},
		{"bare percent", "notes:///100%", scheme, syntax},
		{"closing brace", "notes:///a}", scheme, syntax},
		{"control character", "notes:///\x1b{id}", scheme, syntax},
		{"not ASCII", "notes:///é{id}", scheme, syntax},
		{"too long", "notes:///" + strings.Repeat("a", MaxURILength), scheme, syntax},
		{"empty", "", scheme, syntax},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckTemplate(tc.tmpl, tc.space)
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalid)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == syntax {
				require.NotErrorIs(t, err, ErrForeignURI)
			}
		})
	}
}

// FuzzTemplateMatchesRFC6570 holds the template parser to an independent
// RFC 6570 implementation (github.com/yosida95/uritemplate, which the
// server's tests also use): on printable ASCII both accept the same
// templates, and the probe is that library's expansion with every
// variable set to "x".
func FuzzTemplateMatchesRFC6570(f *testing.F) {
	for _, s := range []string{
		"notes:///{id}", "x:{+a}{#b}{.c}{/d}{;e}{?f,g}{&h}", "x:{a:3}{b*}", "x:{a:0}", "x:{a:10000}", "x:{a:9999}",
		"x:{%41b}", "x:{a.b}", "x:{a..b}", "x:{.a}", "x:{a.}", "x:{}", "x:{,}", "x:{a,}", "x:{=a}", "x:{|a}",
		"x:%4", "x:%41", "x:'a'", "x:{a", "x:a}", "x:{a{b}}", "x:{a*:3}", "x:{a:3*}", "x:{a:03}", "{a}", "",
		"x:<>", "x:\\", "x:^`|", "x:{+a:5,b*}", "x:{;a,b}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || len(s) > MaxURILength || !isPrintableASCII(s) {
			_, err := parseTemplate(s)
			require.Error(t, err)
			return
		}
		ours, err := parseTemplate(s)
		ref, refErr := uritemplate.New(s)
		require.Equal(t, refErr == nil, err == nil, "%q: ours %v, reference %v", s, err, refErr)
		if err != nil {
			return
		}
		vals := uritemplate.Values{}
		for _, name := range ref.Varnames() {
			vals.Set(name, uritemplate.String("x"))
		}
		want, err := ref.Expand(vals)
		require.NoError(t, err)
		require.Equal(t, want, ours.probe(), "%q", s)
	})
}

// FuzzCheckTemplateStaysInSpace: whatever values a client gives the
// variables of an accepted template (undefined, empty, slashes, a host, an
// exploded list with an empty item), the expansion is owned by the space,
// or is not a URI at all.
func FuzzCheckTemplateStaysInSpace(f *testing.F) {
	spaces := []URISpace{
		{{Scheme: "notes"}},
		{{Scheme: "file", PathPrefix: "/srv/"}},
		{{Scheme: "file", PathPrefix: "/srv/data"}},
		{{Scheme: "https", Authority: "api.example.com", PathPrefix: "/v1/"}},
		{{Scheme: "s3", Authority: AnyAuthority, PathPrefix: "/pub/"}},
	}
	palette := []uritemplate.Value{
		{}, uritemplate.String(""), uritemplate.String("x"), uritemplate.String("/"), uritemplate.String("//evil.example/x"),
		uritemplate.String("@evil.example"), uritemplate.String("?q"), uritemplate.String("#f"), uritemplate.String(":"),
		uritemplate.List("", "evil.example"), uritemplate.List("a", "b"), uritemplate.KV("k", "/v"),
	}
	for _, s := range []string{"notes:{+x}", "notes:{a}{+b}", "notes:/{/x}", "notes:{/x,y}", "notes:{/x*}", "notes:///{+p}",
		"file:///srv/{+p}", "file:///srv/data/{p}", "https://api.example.com/v1/{+p}", "s3://b/pub/{k}{?q*}", "notes:{#f}{+g}"} {
		f.Add(s, []byte{1, 2, 3, 4, 9})
	}
	f.Fuzz(func(t *testing.T, s string, choices []byte) {
		ref, err := uritemplate.New(s)
		if err != nil || len(choices) == 0 {
			return
		}
		vals := uritemplate.Values{}
		for i, name := range ref.Varnames() {
			if v := palette[int(choices[i%len(choices)])%len(palette)]; v.Valid() {
				vals.Set(name, v)
			}
		}
		uri, err := ref.Expand(vals)
		if err != nil {
			return
		}
		for _, space := range spaces {
			if CheckTemplate(s, space) != nil {
				continue
			}
			if _, perr := ParseURI(uri); perr == nil {
				require.True(t, space.OwnsString(uri), "template %q accepted for %v expands to %q outside it", s, space, uri)
			}
		}
	})
}
