package abi

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Validation sentinels. Every error returned by a Validate method wraps
// ErrInvalid; ErrForeignURI additionally marks a URI outside the provider's
// declared URI space.
var (
	ErrInvalid    = errors.New("invalid payload")
	ErrForeignURI = errors.New("uri outside the provider's uri space")
	ErrBadURI     = errors.New("invalid uri")
)

// AnyAuthority as URIRoot.Authority owns URIs with any authority (or none).
const AnyAuthority = "*"

// URISpace is the set of URIs a provider owns.
type URISpace []URIRoot

// ParseURI parses and bounds-checks an absolute URI: at most MaxURILength
// bytes, valid UTF-8, no spaces and no control or format characters
// (IsControlOrFormat: C0, DEL, C1, BiDi controls, zero-width characters,
// line separators), a scheme.
func ParseURI(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, fmt.Errorf("%w: empty", ErrBadURI)
	}
	if len(raw) > MaxURILength {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrBadURI, MaxURILength)
	}
	if !utf8.ValidString(raw) {
		return nil, fmt.Errorf("%w: not UTF-8", ErrBadURI)
	}
	if strings.IndexByte(raw, ' ') >= 0 || HasControlOrFormat(raw) {
		return nil, fmt.Errorf("%w: contains a control character or space, or a format character such as a BiDi override: percent-encode it", ErrBadURI)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: does not parse", ErrBadURI)
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("%w: no scheme", ErrBadURI)
	}
	return u, nil
}

// ownsFast decides ownership without net/url for the common case: a space
// of scheme-only roots and a URI with no authority ("notes:x", "notes:///x")
// made of printable ASCII with valid percent-escapes. ok is false when the
// full parse is needed. FuzzOwnsFast checks it agrees with ParseURI + Owns.
func (s URISpace) ownsFast(raw string) (owned, ok bool) {
	for _, r := range s {
		if r.Authority != "" || r.PathPrefix != "" {
			return false, false
		}
	}
	if len(raw) > MaxURILength {
		return false, false
	}
	colon := strings.IndexByte(raw, ':')
	if colon < 1 || !isSchemeFold(raw[:colon]) {
		return false, false
	}
	rest := raw[colon+1:]
	if strings.HasPrefix(rest, "//") && !strings.HasPrefix(rest, "///") {
		return false, false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c <= 0x20 || c >= 0x7f || c == '#' || c == '?' || c == '\\':
			return false, false
		case c == '%':
			if i+2 >= len(rest) || !isHex(rest[i+1]) || !isHex(rest[i+2]) {
				return false, false
			}
		}
	}
	for _, r := range s {
		if strings.EqualFold(raw[:colon], r.Scheme) {
			return true, true
		}
	}
	return false, true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// isSchemeFold is isScheme for either case.
func isSchemeFold(s string) bool { return isScheme(strings.ToLower(s)) }

// Owns reports whether u lies in the space.
func (s URISpace) Owns(u *url.URL) bool {
	for _, r := range s {
		if r.owns(u) {
			return true
		}
	}
	return false
}

// OwnsString parses raw and reports whether it lies in the space; a
// URI without authority in a space of bare schemes is decided without
// net/url (ownsFast).
func (s URISpace) OwnsString(raw string) bool {
	if owned, ok := s.ownsFast(raw); ok {
		return owned
	}
	u, err := ParseURI(raw)
	return err == nil && s.Owns(u)
}

func (r URIRoot) owns(u *url.URL) bool {
	if !strings.EqualFold(u.Scheme, r.Scheme) {
		return false
	}
	switch r.Authority {
	case "": // no authority: "x:opaque" and "x:///path" only
		if u.Host != "" || u.User != nil {
			return false
		}
	case AnyAuthority:
	default:
		if u.User != nil || !strings.EqualFold(u.Host, r.Authority) {
			return false
		}
	}
	if r.PathPrefix == "" {
		return true
	}
	return pathWithin(u.EscapedPath(), r.PathPrefix)
}

// Overlaps reports whether some URI could be owned by both roots.
func (r URIRoot) Overlaps(o URIRoot) bool {
	if !strings.EqualFold(r.Scheme, o.Scheme) {
		return false
	}
	if r.Authority != AnyAuthority && o.Authority != AnyAuthority && !strings.EqualFold(r.Authority, o.Authority) {
		return false
	}
	a, b := r.PathPrefix, o.PathPrefix
	return pathWithin(a, b) || pathWithin(b, a)
}

// pathWithin reports whether every path under prefix p is also under prefix q.
func pathWithin(p, q string) bool {
	if q == "" {
		return true
	}
	if !strings.HasPrefix(p, q) {
		return false
	}
	return len(p) == len(q) || strings.HasSuffix(q, "/") || p[len(q)] == '/'
}

// String renders the root as a URI prefix, e.g. "notes:", "s3://*" or "https://api.example.com/v1".
func (r URIRoot) String() string {
	if r.Authority == "" {
		return r.Scheme + ":" + r.PathPrefix
	}
	return r.Scheme + "://" + r.Authority + r.PathPrefix
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

func checkText(field, s string, required bool) error {
	if required && s == "" {
		return invalid("%s is empty", field)
	}
	if len(s) > MaxTextField {
		return invalid("%s longer than %d bytes", field, MaxTextField)
	}
	return nil
}

func isScheme(s string) bool {
	if s == "" || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func isName(s string) bool {
	if s == "" || len(s) > MaxNameLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (i > 0 && (c == '-' || c == '_' || c == '.'))
		if !ok {
			return false
		}
	}
	return true
}

// Validate checks a describe payload.
func (d *Describe) Validate() error {
	if !isName(d.Name) {
		return invalid("name must be 1-%d of [a-z0-9._-], starting with a letter or digit", MaxNameLength)
	}
	if d.Version == "" || len(d.Version) > 64 || HasControlOrFormat(d.Version) {
		return invalid("version must be 1-64 bytes without control or format characters")
	}
	if err := checkText("title", d.Title, false); err != nil {
		return err
	}
	if err := checkText("description", d.Description, false); err != nil {
		return err
	}
	if len(d.URISpace) == 0 || len(d.URISpace) > 32 {
		return invalid("uriSpace must list 1-32 roots")
	}
	for i, r := range d.URISpace {
		if err := r.validate(); err != nil {
			return fmt.Errorf("uriSpace[%d]: %w", i, err)
		}
	}
	if err := validateOperations(d.Operations); err != nil {
		return err
	}
	if d.Requests != nil {
		if err := d.Requests.validate(); err != nil {
			return err
		}
	}
	return d.Cache.validate()
}

func validateOperations(ops []string) error {
	seen := map[string]bool{}
	for _, op := range ops {
		known := false
		for _, k := range Operations {
			known = known || k == op
		}
		if !known {
			return invalid("unknown operation (known: %s)", strings.Join(Operations, ", "))
		}
		if seen[op] {
			return invalid("operation %q listed twice", op)
		}
		seen[op] = true
	}
	return nil
}

func (r URIRoot) validate() error {
	if !isScheme(r.Scheme) {
		return invalid("scheme must be lower-case RFC 3986 (a-z, then a-z0-9+.-), at most 32 bytes")
	}
	if r.Authority != "" && r.Authority != AnyAuthority {
		if len(r.Authority) > 255 || strings.ContainsAny(r.Authority, "/?#@ \\") || !isPrintableASCII(r.Authority) {
			return invalid("authority must be host[:port] in printable ASCII")
		}
	}
	if r.PathPrefix != "" {
		if !strings.HasPrefix(r.PathPrefix, "/") || len(r.PathPrefix) > 512 || !isPrintableASCII(r.PathPrefix) ||
			strings.Contains(r.PathPrefix, "/../") || strings.HasSuffix(r.PathPrefix, "/..") {
			return invalid("pathPrefix must start with '/', be printable ASCII and contain no '..' segment")
		}
	}
	return nil
}

func (q *Requests) validate() error {
	for _, f := range q.Filesystem {
		if !strings.HasPrefix(f.Path, "/") || strings.Contains(f.Path, "..") || len(f.Path) > 256 || HasControlOrFormat(f.Path) {
			return invalid("requests.filesystem path must be absolute, without '..' or control or format characters, at most 256 bytes")
		}
		if err := checkText("reason", f.Reason, false); err != nil {
			return err
		}
	}
	for _, c := range q.Config {
		if !isConfigKey(c.Key) {
			return invalid("requests.config key must be 1-128 of [A-Za-z0-9_.-]")
		}
		if err := checkText("reason", c.Reason, false); err != nil {
			return err
		}
	}
	for _, h := range q.HTTP {
		u, err := url.Parse(h.Prefix)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(h.Prefix) > MaxURILength ||
			strings.IndexByte(h.Prefix, ' ') >= 0 || HasControlOrFormat(h.Prefix) {
			return invalid("requests.http prefix must be an absolute http(s) URL without spaces or control or format characters")
		}
		if err := checkText("reason", h.Reason, false); err != nil {
			return err
		}
	}
	return nil
}

func isConfigKey(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// IsConfigKey reports whether s is a valid config key.
func IsConfigKey(s string) bool { return isConfigKey(s) }

// Validate checks a cache hint: a ttl between 0 and one year, a scope of
// ScopePublic or ScopePrivate. A nil hint is valid.
func (c *CacheHint) Validate() error { return c.validate() }

func (c *CacheHint) validate() error {
	if c == nil {
		return nil
	}
	if c.TTLMs < 0 || c.TTLMs > 365*24*3600*1000 {
		return invalid("cache.ttlMs must be between 0 and one year")
	}
	if c.Scope != ScopePublic && c.Scope != ScopePrivate {
		return invalid("cache.scope must be %q or %q", ScopePublic, ScopePrivate)
	}
	return nil
}

func checkCursor(c string) error {
	if len(c) > MaxCursorLength {
		return invalid("nextCursor longer than %d bytes", MaxCursorLength)
	}
	return nil
}

// checkOwned parses a guest-returned URI and checks the space owns it.
func checkOwned(field, raw string, space URISpace) error {
	if owned, ok := space.ownsFast(raw); ok {
		if !owned {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, field, ErrForeignURI)
		}
		return nil
	}
	u, err := ParseURI(raw)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalid, field, err)
	}
	if !space.Owns(u) {
		return fmt.Errorf("%w: %s: %w", ErrInvalid, field, ErrForeignURI)
	}
	return nil
}

// Validate checks a list page against the provider's URI space.
func (r *ListResult) Validate(space URISpace) error {
	if len(r.Resources) > MaxListItems {
		return invalid("more than %d resources in one page", MaxListItems)
	}
	for i := range r.Resources {
		if err := r.Resources[i].validate(space); err != nil {
			return fmt.Errorf("resources[%d]: %w", i, err)
		}
	}
	if err := checkCursor(r.NextCursor); err != nil {
		return err
	}
	return r.Cache.validate()
}

func (res *Resource) validate(space URISpace) error {
	if err := checkOwned("uri", res.URI, space); err != nil {
		return err
	}
	if err := checkMeta(res.Name, res.Title, res.Description, res.MIMEType); err != nil {
		return err
	}
	if res.Size != nil && *res.Size < 0 {
		return invalid("size is negative")
	}
	if err := res.Annotations.validate(); err != nil {
		return err
	}
	return validateIcons(res.Icons)
}

func checkMeta(name, title, description, mime string) error {
	if err := checkText("name", name, true); err != nil {
		return err
	}
	if err := checkText("title", title, false); err != nil {
		return err
	}
	if err := checkText("description", description, false); err != nil {
		return err
	}
	return checkMIME(mime)
}

func checkMIME(m string) error {
	if m == "" {
		return nil
	}
	typ, sub, ok := strings.Cut(m, "/")
	if !ok || typ == "" || sub == "" || len(m) > 255 || !isPrintableASCII(m) || strings.ContainsAny(typ, " ;") {
		return invalid("mimeType must be type/subtype")
	}
	return nil
}

func (a *Annotations) validate() error {
	if a == nil {
		return nil
	}
	if len(a.Audience) > 2 {
		return invalid("annotations.audience has more than 2 entries")
	}
	for _, x := range a.Audience {
		if x != "user" && x != "assistant" {
			return invalid("annotations.audience entries must be \"user\" or \"assistant\"")
		}
	}
	if a.Priority != nil && (*a.Priority < 0 || *a.Priority > 1 || *a.Priority != *a.Priority) {
		return invalid("annotations.priority must be between 0 and 1")
	}
	if a.LastModified != "" {
		if _, err := time.Parse(time.RFC3339Nano, a.LastModified); err != nil {
			return invalid("annotations.lastModified must be an RFC 3339 timestamp")
		}
	}
	return nil
}

func validateIcons(icons []Icon) error {
	if len(icons) > 8 {
		return invalid("more than 8 icons")
	}
	for _, ic := range icons {
		if len(ic.Src) > 64*1024 || !(strings.HasPrefix(ic.Src, "https://") || strings.HasPrefix(ic.Src, "data:")) || HasControlOrFormat(ic.Src) {
			return invalid("icon src must be an https: or data: URI of at most 64 KiB without control or format characters")
		}
		if err := checkMIME(ic.MIMEType); err != nil {
			return err
		}
		if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
			return invalid("icon theme must be \"light\" or \"dark\"")
		}
		if len(ic.Sizes) > 16 {
			return invalid("icon has more than 16 sizes")
		}
		for _, sz := range ic.Sizes {
			if len(sz) > 64 || HasControlOrFormat(sz) {
				return invalid("icon sizes must be at most 64 bytes each, without control or format characters")
			}
		}
	}
	return nil
}

// Validate checks a templates page against the provider's URI space: every
// template by CheckTemplate (RFC 6570 syntax, expansions that stay in space).
func (r *TemplatesResult) Validate(space URISpace) error {
	if len(r.ResourceTemplates) > MaxListItems {
		return invalid("more than %d templates in one page", MaxListItems)
	}
	for i, t := range r.ResourceTemplates {
		if err := CheckTemplate(t.URITemplate, space); err != nil {
			return fmt.Errorf("resourceTemplates[%d]: %w", i, err)
		}
		if err := checkMeta(t.Name, t.Title, t.Description, t.MIMEType); err != nil {
			return fmt.Errorf("resourceTemplates[%d]: %w", i, err)
		}
		if err := t.Annotations.validate(); err != nil {
			return fmt.Errorf("resourceTemplates[%d]: %w", i, err)
		}
		if err := validateIcons(t.Icons); err != nil {
			return fmt.Errorf("resourceTemplates[%d]: %w", i, err)
		}
	}
	if err := checkCursor(r.NextCursor); err != nil {
		return err
	}
	return r.Cache.validate()
}

// Validate checks a read result against the provider's URI space.
func (r *ReadResult) Validate(space URISpace) error {
	if len(r.Contents) == 0 {
		return invalid("contents is empty (return a not_found error instead)")
	}
	if len(r.Contents) > MaxListItems {
		return invalid("more than %d contents", MaxListItems)
	}
	for i := range r.Contents {
		c := &r.Contents[i]
		if err := checkOwned("uri", c.URI, space); err != nil {
			return fmt.Errorf("contents[%d]: %w", i, err)
		}
		if err := checkMIME(c.MIMEType); err != nil {
			return fmt.Errorf("contents[%d]: %w", i, err)
		}
		if c.RawText != nil || c.RawBlob != nil {
			return fmt.Errorf("contents[%d]: %w", i, invalid("rawText and rawBlob refer to content_write bodies, which the host resolves first; none were written"))
		}
		if (c.Text == nil) == (c.Blob == nil) {
			return fmt.Errorf("contents[%d]: %w", i, invalid("exactly one of text and blob must be set"))
		}
		if c.Blob != nil && !ValidBase64(*c.Blob) {
			return fmt.Errorf("contents[%d]: %w", i, invalid("blob is not standard padded base64"))
		}
		if err := c.Annotations.validate(); err != nil {
			return fmt.Errorf("contents[%d]: %w", i, err)
		}
	}
	return r.Cache.validate()
}

// ValidBase64 reports whether s is standard (RFC 4648 §4), padded base64
// with no whitespace and zero padding bits.
func ValidBase64(s string) bool {
	if len(s)%4 != 0 {
		return false
	}
	pad := 0
	if strings.HasSuffix(s, "==") {
		pad = 2
	} else if strings.HasSuffix(s, "=") {
		pad = 1
	}
	body := s[:len(s)-pad]
	for i := 0; i < len(body); i++ {
		if b64val(body[i]) < 0 {
			return false
		}
	}
	if pad > 0 && len(body) > 0 {
		last := b64val(body[len(body)-1])
		mask := 0x0f // pad 2: last char carries 2 data bits, low 4 must be zero
		if pad == 1 {
			mask = 0x03
		}
		if last&mask != 0 {
			return false
		}
	}
	return true
}

func b64val(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}

// Validate checks a completion result.
func (r *CompleteResult) Validate() error {
	if len(r.Values) > MaxCompletionValues {
		return invalid("more than %d completion values", MaxCompletionValues)
	}
	for _, v := range r.Values {
		if err := checkText("value", v, false); err != nil {
			return err
		}
	}
	if r.Total != nil && *r.Total < len(r.Values) {
		return invalid("total is smaller than the number of values")
	}
	return nil
}

// Validate checks a changes result against the provider's URI space.
func (r *ChangesResult) Validate(space URISpace) error {
	if len(r.Updated) > MaxListItems {
		return invalid("more than %d updated uris", MaxListItems)
	}
	for i, u := range r.Updated {
		if err := checkOwned(fmt.Sprintf("updated[%d]", i), u, space); err != nil {
			return err
		}
	}
	return checkCursor(r.Cursor)
}

// Validate checks a domain error payload.
func (e *Error) Validate() error {
	switch e.Code {
	case CodeNotFound, CodeInvalidParams, CodeInternal:
	default:
		return invalid("error code must be %q, %q or %q", CodeNotFound, CodeInvalidParams, CodeInternal)
	}
	return checkText("message", e.Message, false)
}

// ValidName reports whether s is a valid provider name: 1-MaxNameLength of
// [a-z0-9._-], starting with a letter or digit (Describe.Name's rule).
func ValidName(s string) bool { return isName(s) }
