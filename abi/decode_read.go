package abi

// decodeReadFast decodes a read result of raw content in its plainest
// form, without reflection: the one the default provider (C SDK) returns
// on every read, and the Go SDK for contents without a cache hint or other
// annotations:
//
//	{"contents":[{"uri":"...","mimeType":"...","rawText":0,"annotations":{"lastModified":"..."}}]}
//
// Members of a content in any order, "mimeType" and "annotations"
// optional, one or more contents; no whitespace, and every string printable
// ASCII without escapes. It accepts a subset of what Decode's general
// decoder accepts and gives the same result for it (FuzzDecodeReadFast
// holds it to that); anything else (another member, a "cache" hint, text
// or blob inline, whitespace, an escape, a duplicate, null) is not decided
// here: it returns false with r untouched, and the general decoder decides.
//
// It exists because the general decoder is driven by reflection, and after
// an idle pause, when a server's read finds its caches cold, that costs
// several microseconds of every 1 KiB read (docs/performance.md).
func decodeReadFast(data []byte, r *ReadResult) bool {
	const head = `{"contents":[`
	if len(data) < len(head)+3 || string(data[:len(head)]) != head || string(data[len(data)-2:]) != "]}" {
		return false
	}
	f := fastReader{data: data, pos: len(head)}
	if len(data) <= sharedTextMax {
		f.text = string(data)
	}
	var contents []Content
	for {
		c, ok := f.content()
		if !ok {
			return false
		}
		contents = append(contents, c)
		if f.pos >= len(data) {
			return false
		}
		switch data[f.pos] {
		case ',':
			f.pos++
			continue
		case ']':
			if f.pos != len(data)-2 {
				return false
			}
			r.Contents = contents
			return true
		default:
			return false
		}
	}
}

type fastReader struct {
	data []byte
	text string // data as a string, when substrings share it (Decode does the same)
	pos  int
}

// Members of a content the fast path takes, as bits (a duplicate is left
// to the general decoder, which refuses it).
const (
	fastURI = 1 << iota
	fastMIME
	fastRawText
	fastRawBlob
	fastAnnotations
)

func (f *fastReader) content() (Content, bool) {
	var c Content
	if !f.byte('{') {
		return c, false
	}
	seen := 0
	for {
		name, ok := f.plain()
		if !ok || !f.byte(':') {
			return c, false
		}
		var bit int
		switch name {
		case "uri":
			bit = fastURI
			c.URI, ok = f.plain()
		case "mimeType":
			bit = fastMIME
			c.MIMEType, ok = f.plain()
		case "rawText":
			bit = fastRawText
			c.RawText, ok = f.index()
		case "rawBlob":
			bit = fastRawBlob
			c.RawBlob, ok = f.index()
		case "annotations":
			bit = fastAnnotations
			c.Annotations, ok = f.annotations()
		default:
			return c, false
		}
		if !ok || seen&bit != 0 {
			return c, false
		}
		seen |= bit
		if f.byte('}') {
			return c, seen&fastURI != 0
		}
		if !f.byte(',') {
			return c, false
		}
	}
}

// annotations takes {"lastModified":"..."} only.
func (f *fastReader) annotations() (*Annotations, bool) {
	if !f.byte('{') {
		return nil, false
	}
	if name, ok := f.plain(); !ok || name != "lastModified" || !f.byte(':') {
		return nil, false
	}
	s, ok := f.plain()
	if !ok || !f.byte('}') {
		return nil, false
	}
	return &Annotations{LastModified: s}, true
}

// plain reads a string of printable ASCII without escapes.
func (f *fastReader) plain() (string, bool) {
	if !f.byte('"') {
		return "", false
	}
	start := f.pos
	for f.pos < len(f.data) {
		switch c := f.data[f.pos]; {
		case c == '"':
			f.pos++
			if f.text != "" {
				return f.text[start : f.pos-1], true
			}
			return string(f.data[start : f.pos-1]), true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", false
		}
		f.pos++
	}
	return "", false
}

// index reads a body index: 0, or up to 9 digits without a leading zero.
func (f *fastReader) index() (*int, bool) {
	n, digits := 0, 0
	for f.pos < len(f.data) && f.data[f.pos] >= '0' && f.data[f.pos] <= '9' {
		if digits > 0 && n == 0 || digits == 9 {
			return nil, false
		}
		n = n*10 + int(f.data[f.pos]-'0')
		digits++
		f.pos++
	}
	if digits == 0 {
		return nil, false
	}
	return &n, true
}

func (f *fastReader) byte(c byte) bool {
	if f.pos < len(f.data) && f.data[f.pos] == c {
		f.pos++
		return true
	}
	return false
}
