package mcpw

import (
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// The output payloads, in the member order of their abi struct.

func appendDescribe(b []byte, d *abi.Describe) []byte {
	b = appendMember(b, `{"name":`, d.Name)
	b = appendMember(b, `,"version":`, d.Version)
	if d.Title != "" {
		b = appendMember(b, `,"title":`, d.Title)
	}
	if d.Description != "" {
		b = appendMember(b, `,"description":`, d.Description)
	}
	if d.URISpace == nil {
		b = append(b, `,"uriSpace":null`...)
	} else {
		b = append(b, `,"uriSpace":[`...)
		for i, r := range d.URISpace {
			b = appendMember(b, first(`,{"scheme":`, i), r.Scheme)
			if r.Authority != "" {
				b = appendMember(b, `,"authority":`, r.Authority)
			}
			if r.PathPrefix != "" {
				b = appendMember(b, `,"pathPrefix":`, r.PathPrefix)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"operations":`...)
	b = appendStrings(b, d.Operations)
	if d.Requests != nil {
		b = appendRequests(b, d.Requests)
	}
	if d.Cache != nil {
		b = appendCache(b, d.Cache)
	}
	return append(b, '}')
}

func appendRequests(b []byte, q *abi.Requests) []byte {
	b = append(b, `,"requests":{`...)
	if len(q.Filesystem) > 0 {
		b = append(b, `"filesystem":[`...)
		for i, f := range q.Filesystem {
			b = appendMember(b, first(`,{"path":`, i), f.Path)
			if f.Reason != "" {
				b = appendMember(b, `,"reason":`, f.Reason)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(q.Config) > 0 {
		b = key(b, "config")
		b = append(b, '[')
		for i, c := range q.Config {
			b = appendMember(b, first(`,{"key":`, i), c.Key)
			if c.Secret {
				b = append(b, `,"secret":true`...)
			}
			if c.Required {
				b = append(b, `,"required":true`...)
			}
			if c.Reason != "" {
				b = appendMember(b, `,"reason":`, c.Reason)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(q.HTTP) > 0 {
		b = key(b, "http")
		b = append(b, '[')
		for i, h := range q.HTTP {
			b = appendMember(b, first(`,{"prefix":`, i), h.Prefix)
			if h.Reason != "" {
				b = appendMember(b, `,"reason":`, h.Reason)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if q.Clock {
		b = key(b, "clock")
		b = append(b, "true"...)
	}
	if q.Random {
		b = key(b, "random")
		b = append(b, "true"...)
	}
	return append(b, '}')
}

func appendListResult(b []byte, r *abi.ListResult) (_ []byte, ok bool) {
	ok = true
	if r.Resources == nil {
		b = append(b, `{"resources":null`...)
	} else {
		b = append(b, `{"resources":[`...)
		// Each resource is left open; the next one's `},{"uri":` closes
		// it, saving an append (a jump) per resource.
		for i := range r.Resources {
			var fine bool
			b, fine = appendResource(b, `},{"uri":`[2-2*min(i, 1):], &r.Resources[i])
			if !fine {
				ok = false
			}
		}
		if len(r.Resources) > 0 {
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.NextCursor != "" {
		b = appendMember(b, `,"nextCursor":`, r.NextCursor)
	}
	if r.Cache != nil {
		b = appendCache(b, r.Cache)
	}
	return append(b, '}'), ok
}

// appendResource appends a resource without its closing brace; open is
// `{"uri":` or `},{"uri":`.
func appendResource(b []byte, open string, r *abi.Resource) (_ []byte, ok bool) {
	b = appendMember(b, open, r.URI)
	b = appendMember(b, `,"name":`, r.Name)
	if len(r.Title)|len(r.Description) != 0 { // one jump when both are absent
		if r.Title != "" {
			b = appendMember(b, `,"title":`, r.Title)
		}
		if r.Description != "" {
			b = appendMember(b, `,"description":`, r.Description)
		}
	}
	if r.MIMEType != "" {
		b = appendMember(b, `,"mimeType":`, r.MIMEType)
	}
	if r.Size != nil {
		b = appendIntMember(b, `,"size":`, *r.Size)
	}
	ok = true
	rare := len(r.Icons)
	if r.Annotations != nil {
		rare = 1 // a select, not a jump: one test for both
	}
	if rare != 0 {
		if r.Annotations != nil {
			b, ok = appendAnnotations(b, r.Annotations)
		}
		if len(r.Icons) > 0 {
			b = appendIcons(b, r.Icons)
		}
	}
	return b, ok
}

func appendTemplatesResult(b []byte, r *abi.TemplatesResult) (_ []byte, ok bool) {
	ok = true
	if r.ResourceTemplates == nil {
		b = append(b, `{"resourceTemplates":null`...)
	} else {
		b = append(b, `{"resourceTemplates":[`...)
		for i := range r.ResourceTemplates {
			t := &r.ResourceTemplates[i]
			b = appendMember(b, first(`,{"uriTemplate":`, i), t.URITemplate)
			b = appendMember(b, `,"name":`, t.Name)
			if t.Title != "" {
				b = appendMember(b, `,"title":`, t.Title)
			}
			if t.Description != "" {
				b = appendMember(b, `,"description":`, t.Description)
			}
			if t.MIMEType != "" {
				b = appendMember(b, `,"mimeType":`, t.MIMEType)
			}
			if t.Annotations != nil {
				var fine bool
				b, fine = appendAnnotations(b, t.Annotations)
				ok = ok && fine
			}
			if len(t.Icons) > 0 {
				b = appendIcons(b, t.Icons)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.NextCursor != "" {
		b = appendMember(b, `,"nextCursor":`, r.NextCursor)
	}
	if r.Cache != nil {
		b = appendCache(b, r.Cache)
	}
	return append(b, '}'), ok
}

func appendReadResult(b []byte, r *abi.ReadResult) (_ []byte, ok bool) {
	ok = true
	if r.Contents == nil {
		b = append(b, `{"contents":null`...)
	} else {
		b = append(b, `{"contents":[`...)
		for i := range r.Contents {
			c := &r.Contents[i]
			b = appendMember(b, first(`,{"uri":`, i), c.URI)
			if c.MIMEType != "" {
				b = appendMember(b, `,"mimeType":`, c.MIMEType)
			}
			if c.Text != nil {
				if n := rawText(*c.Text); n >= 0 {
					b = strconv.AppendInt(append(b, `,"rawText":`...), int64(n), 10)
				} else {
					b = appendMember(b, `,"text":`, *c.Text)
				}
			}
			if c.Blob != nil {
				b = appendMember(b, `,"blob":`, *c.Blob)
			}
			if c.Data != nil {
				if n := rawContent(c.Data); n >= 0 {
					b = strconv.AppendInt(append(b, `,"rawBlob":`...), int64(n), 10)
				} else {
					b = appendMember(b, `,"blob":`, encodeBase64(c.Data))
				}
			}
			if c.RawText != nil {
				b = strconv.AppendInt(append(b, `,"rawText":`...), int64(*c.RawText), 10)
			}
			if c.RawBlob != nil {
				b = strconv.AppendInt(append(b, `,"rawBlob":`...), int64(*c.RawBlob), 10)
			}
			if c.Annotations != nil {
				var fine bool
				b, fine = appendAnnotations(b, c.Annotations)
				ok = ok && fine
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.Cache != nil {
		b = appendCache(b, r.Cache)
	}
	return append(b, '}'), ok
}

func appendCompleteResult(b []byte, r *abi.CompleteResult) []byte {
	b = append(b, `{"values":`...)
	b = appendStrings(b, r.Values)
	if r.Total != nil {
		b = appendIntMember(b, `,"total":`, int64(*r.Total))
	}
	if r.HasMore {
		b = append(b, `,"hasMore":true`...)
	}
	return append(b, '}')
}

func appendChangesResult(b []byte, r *abi.ChangesResult) []byte {
	b = append(b, '{')
	if r.Cursor != "" {
		b = appendMember(b, `"cursor":`, r.Cursor)
	}
	if len(r.Updated) > 0 {
		b = key(b, "updated")
		b = appendStrings(b, r.Updated)
	}
	if r.ListChanged {
		b = key(b, "listChanged")
		b = append(b, "true"...)
	}
	return append(b, '}')
}

func appendError(b []byte, e *abi.Error) []byte {
	b = appendMember(b, `{"code":`, e.Code)
	if e.Message != "" {
		b = appendMember(b, `,"message":`, e.Message)
	}
	return append(b, '}')
}

// rawText hands text content to the host as it is, when it is valid UTF-8
// and the host takes raw contents; otherwise the caller sends it escaped
// (which also replaces invalid bytes).
func rawText(s string) int {
	if !utf8.ValidString(s) {
		return -1
	}
	return rawContent(unsafe.Slice(unsafe.StringData(s), len(s)))
}
