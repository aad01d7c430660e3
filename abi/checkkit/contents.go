package checkkit

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// checkContents compares what each read answered with what list (or the
// template) promised: the same mimeType, the same size, and bytes that
// are what the mimeType says for the types the battery can recognize.
func (b *battery) checkContents(c *Check) {
	if len(b.reads) == 0 {
		c.skip("nothing was read")
		return
	}
	for _, r := range b.reads {
		if !b.contentsOf(c, r) {
			return
		}
	}
}

// contentsOf checks one read; it reports whether the check should go on.
func (b *battery) contentsOf(c *Check, r readDone) bool {
	promised, by := "", ""
	var size *int64
	switch {
	case r.resource != nil:
		promised, size, by = r.resource.MIMEType, r.resource.Size, "list"
	case r.template != nil:
		promised, by = r.template.MIMEType, "template "+quote(r.template.URITemplate)
	}
	total, matched := int64(0), false
	for i, ct := range r.res.Contents {
		what := fmt.Sprintf("read %s, contents[%d]", quote(r.uri), i)
		data, isText := contentBytes(ct)
		if ct.URI == r.uri {
			matched = true
			total += int64(len(data))
			if promised != "" && ct.MIMEType != "" && !sameMIME(promised, ct.MIMEType) {
				if !c.add(Problem{What: what, Why: fmt.Sprintf("mimeType is %s but %s said %s", quote(ct.MIMEType), by, quote(promised)),
					Fix: "give the resource the same mimeType in list (or the template) and in read"}) {
					return false
				}
			}
		}
		m := ct.MIMEType
		if m == "" && ct.URI == r.uri {
			m = promised
		}
		if why := sniff(m, data, isText); why != "" {
			if !c.add(Problem{What: what, Why: fmt.Sprintf("mimeType %s, but %s", quote(m), why),
				Fix: "declare the mimeType the bytes have (or send the bytes the mimeType says)"}) {
				return false
			}
		}
	}
	if size != nil && matched && *size != total {
		return c.add(Problem{What: "read " + quote(r.uri), Why: fmt.Sprintf("list says size %d, the contents are %d bytes", *size, total),
			Fix: "size is the content's length in bytes (text as UTF-8, a blob decoded): compute it from the same data, or leave it out"})
	}
	return true
}

func contentBytes(ct abi.Content) ([]byte, bool) {
	switch {
	case ct.Text != nil:
		return []byte(*ct.Text), true
	case ct.Blob != nil:
		d, err := base64.StdEncoding.DecodeString(*ct.Blob)
		if err == nil {
			return d, false
		}
	case ct.Data != nil:
		return ct.Data, false
	}
	return nil, false
}

func sameMIME(a, b string) bool {
	ma, _, errA := mime.ParseMediaType(a)
	mb, _, errB := mime.ParseMediaType(b)
	if errA != nil || errB != nil {
		return strings.EqualFold(a, b)
	}
	return ma == mb
}

// sniff says what is wrong with data for the mimeType m, for the types
// whose bytes the battery can recognize; "" when nothing is.
func sniff(m string, data []byte, isText bool) string {
	base, _, err := mime.ParseMediaType(m)
	if err != nil || m == "" {
		return ""
	}
	magic := map[string][]byte{
		"image/png":        []byte("\x89PNG\r\n\x1a\n"),
		"image/jpeg":       {0xff, 0xd8, 0xff},
		"image/gif":        []byte("GIF8"),
		"application/pdf":  []byte("%PDF-"),
		"application/zip":  []byte("PK"),
		"application/gzip": {0x1f, 0x8b},
		"application/wasm": []byte("\x00asm"),
	}
	if sig, ok := magic[base]; ok && !bytes.HasPrefix(data, sig) {
		return fmt.Sprintf("the content does not start with that type's signature %q", sig)
	}
	switch {
	case base == "application/json" || strings.HasSuffix(base, "+json"):
		if len(data) > 0 && !json.Valid(data) {
			return "the content is not valid JSON"
		}
	case strings.HasPrefix(base, "text/") && !isText:
		if !utf8.Valid(data) {
			return "the content is a blob that is not UTF-8 text"
		}
	}
	return ""
}
