package server

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Bounds of a URIFilter.
const (
	// MaxURIPatterns bounds the include and the exclude patterns of one
	// URIFilter, each.
	MaxURIPatterns = 256
)

// errPattern is wrapped by every refusal of NewURIFilter.
var errPattern = errors.New("invalid uri pattern")

// URIFilter is the operator's rule for which URIs of one provider clients
// see at all: a URI is visible when it matches some include pattern (or no
// include pattern is given) and no exclude pattern. A hidden URI is left
// out of resources/list, is not found by resources/read and
// resources/subscribe (or by a listen), and the same holds for the
// resource tools view; contents of a read whose URIs are hidden are left
// out of it. A template is left out of resources/templates/list when no
// expansion of it can be visible as far as its literal prefix tells, and
// then offers no completions; a visible template offers only the
// completion values whose expansion (with the request's other arguments)
// is visible.
//
// A pattern is a URI in which "*" matches any run of characters but "/",
// and "**" any run at all; everything else is literal. Patterns and URIs
// are compared after the same normalization: scheme and authority in
// lower case, and percent-escapes decoded, so that no spelling of a URI
// (file:///%73ecret for file:///secret) escapes an exclude pattern. The
// path is compared case-sensitively.
//
// The zero URIFilter lets everything through. It is an immutable value.
type URIFilter struct {
	include, exclude []uriPattern
}

// uriPattern is one compiled pattern: its normalized text, the regular
// expression it compiles to (RE2: linear time whatever the input), and its
// literal prefix, the text before its first "*".
type uriPattern struct {
	text    string
	re      *regexp.Regexp
	literal string
}

// NewURIFilter compiles include and exclude patterns. A pattern must start
// with a literal scheme ("file:", "notes:") and be at most
// abi.MaxURILength bytes of printable UTF-8; each list holds at most
// MaxURIPatterns.
func NewURIFilter(include, exclude []string) (URIFilter, error) {
	var f URIFilter
	var err error
	if f.include, err = compilePatterns("include", include); err != nil {
		return URIFilter{}, err
	}
	if f.exclude, err = compilePatterns("exclude", exclude); err != nil {
		return URIFilter{}, err
	}
	return f, nil
}

func compilePatterns(which string, patterns []string) ([]uriPattern, error) {
	if len(patterns) > MaxURIPatterns {
		return nil, fmt.Errorf("%w: %d %s patterns: give at most %d", errPattern, len(patterns), which, MaxURIPatterns)
	}
	out := make([]uriPattern, 0, len(patterns))
	for _, p := range patterns {
		c, err := compilePattern(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %s pattern %q: %w", errPattern, which, clip(p), err)
		}
		out = append(out, c)
	}
	return out, nil
}

var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

func compilePattern(p string) (uriPattern, error) {
	switch {
	case len(p) > abi.MaxURILength:
		return uriPattern{}, fmt.Errorf("longer than %d bytes", abi.MaxURILength)
	case !utf8.ValidString(p) || strings.ContainsFunc(p, abi.IsControlOrFormat) || strings.ContainsAny(p, " \t"):
		return uriPattern{}, errors.New("holds a control, format or space character: write the URI as clients see it")
	case !schemeRE.MatchString(p):
		return uriPattern{}, errors.New(`does not start with a scheme: write it as a URI, such as "file:///docs/**"`)
	}
	canon, ok := canonicalURI(p)
	if !ok {
		return uriPattern{}, errors.New("has an invalid percent-escape")
	}
	var re strings.Builder
	re.WriteString(`\A`)
	for rest := canon; rest != ""; {
		i := strings.IndexByte(rest, '*')
		if i < 0 {
			re.WriteString(regexp.QuoteMeta(rest))
			break
		}
		re.WriteString(regexp.QuoteMeta(rest[:i]))
		if strings.HasPrefix(rest[i:], "**") {
			re.WriteString(`.*`)
			rest = strings.TrimLeft(rest[i:], "*")
		} else {
			re.WriteString(`[^/]*`)
			rest = rest[i+1:]
		}
	}
	re.WriteString(`\z`)
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return uriPattern{}, err
	}
	lit, _, _ := strings.Cut(canon, "*")
	return uriPattern{text: canon, re: compiled, literal: lit}, nil
}

// canonicalURI is the form patterns and URIs are compared in: every
// percent-escape decoded, then the scheme and, after "//", the authority in
// lower case. It reports false for an invalid escape.
func canonicalURI(s string) (string, bool) {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok {
		return "", false
	}
	rest, err := url.PathUnescape(rest)
	if err != nil {
		return "", false
	}
	if strings.HasPrefix(rest, "//") {
		auth := rest[2:]
		end := strings.IndexAny(auth, "/?#")
		if end < 0 {
			end = len(auth)
		}
		rest = "//" + strings.ToLower(auth[:end]) + auth[end:]
	}
	return strings.ToLower(scheme) + ":" + rest, true
}

// IsZero reports whether f lets every URI through.
func (f URIFilter) IsZero() bool { return len(f.include) == 0 && len(f.exclude) == 0 }

// String renders f for logs and summaries: "include A, B; exclude C".
func (f URIFilter) String() string {
	var parts []string
	for _, l := range []struct {
		name string
		ps   []uriPattern
	}{{"include", f.include}, {"exclude", f.exclude}} {
		if len(l.ps) == 0 {
			continue
		}
		texts := make([]string, len(l.ps))
		for i, p := range l.ps {
			texts[i] = p.text
		}
		parts = append(parts, l.name+" "+strings.Join(texts, ", "))
	}
	if len(parts) == 0 {
		return "everything"
	}
	return strings.Join(parts, "; ")
}

// Allows reports whether clients may see uri. A URI that does not
// normalize (an invalid escape) is hidden by any filter that is not zero.
func (f URIFilter) Allows(uri string) bool {
	if f.IsZero() {
		return true
	}
	canon, ok := canonicalURI(uri)
	if !ok {
		return false
	}
	for _, p := range f.exclude {
		if p.re.MatchString(canon) {
			return false
		}
	}
	if len(f.include) == 0 {
		return true
	}
	for _, p := range f.include {
		if p.re.MatchString(canon) {
			return true
		}
	}
	return false
}

// allowsTemplate reports whether some expansion of the RFC 6570 template
// tmpl may be visible, judging by its literal prefix (the text before its
// first expression): it is hidden when an exclude pattern "PREFIX**" covers
// every URI that starts with it, or when include patterns are given and
// none of them can match a URI that starts with it. Reads of its
// expansions are checked one by one anyway.
func (f URIFilter) allowsTemplate(tmpl string) bool {
	if f.IsZero() {
		return true
	}
	lit, _, open := strings.Cut(tmpl, "{")
	if !open {
		return f.Allows(tmpl)
	}
	canon, ok := canonicalURI(lit)
	if !ok {
		return false
	}
	for _, p := range f.exclude {
		if strings.HasSuffix(p.text, "**") && p.literal == strings.TrimRight(p.text, "*") && strings.HasPrefix(canon, p.literal) {
			return false
		}
	}
	if len(f.include) == 0 {
		return true
	}
	for _, p := range f.include {
		if strings.HasPrefix(canon, p.literal) || strings.HasPrefix(p.literal, canon) {
			return true
		}
	}
	return false
}

// filtered is a Provider with the operator's URIFilter (WithURIFilter).
type filtered struct {
	Provider
	filter URIFilter
}

// WithURIFilter returns p with the rule f for what clients see of it;
// pass the result to Config.WithProviders or Server.SetProviders. The
// server unwraps it and calls p itself, the filter applied around it.
func WithURIFilter(p Provider, f URIFilter) Provider {
	if inner, ok := p.(*filtered); ok {
		p = inner.Provider
	}
	if f.IsZero() {
		return p
	}
	return &filtered{Provider: p, filter: f}
}
