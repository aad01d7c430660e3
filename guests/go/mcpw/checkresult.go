package mcpw

import "github.com/mcp-wasm/mcp-wasm/abi"

// The per-payload fast checks: each mirrors the payload's Validate method
// in abi/validate.go, rule for rule.

func (c *checker) readResult(r *abi.ReadResult) bool {
	if len(r.Contents) == 0 || len(r.Contents) > abi.MaxListItems || (r.Cache != nil && !cacheOK(r.Cache)) {
		return false
	}
	for i := range r.Contents {
		x := &r.Contents[i]
		if !c.owned(x.URI) || !c.mimeOK(x.MIMEType) || b2i(x.Text != nil)+b2i(x.Blob != nil)+b2i(x.Data != nil) != 1 ||
			x.RawText != nil || x.RawBlob != nil {
			return false
		}
		if x.Blob != nil && !base64OK(*x.Blob) {
			return false
		}
		if x.Annotations != nil && !annotationsOK(x.Annotations) {
			return false
		}
	}
	return true
}

func (c *checker) listResult(r *abi.ListResult) bool {
	if len(r.Resources) > abi.MaxListItems || len(r.NextCursor) > abi.MaxCursorLength || (r.Cache != nil && !cacheOK(r.Cache)) {
		return false
	}
	for i := range r.Resources {
		x := &r.Resources[i]
		// One test for the lengths: negative if one is out of bounds.
		if (len(x.Name)-1)|(abi.MaxTextField-len(x.Name))|(abi.MaxTextField-len(x.Title))|(abi.MaxTextField-len(x.Description)) < 0 {
			return false
		}
		if !c.owned(x.URI) || !c.mimeOK(x.MIMEType) {
			return false
		}
		if x.Size != nil && *x.Size < 0 {
			return false
		}
		rare := len(x.Icons)
		if x.Annotations != nil {
			rare = 1 // a select, not a jump: one test for both
		}
		if rare != 0 && !(annotationsOK(x.Annotations) && (len(x.Icons) == 0 || c.iconsOK(x.Icons))) {
			return false
		}
	}
	return true
}

func (c *checker) templatesResult(r *abi.TemplatesResult) bool {
	if len(r.ResourceTemplates) > abi.MaxListItems || len(r.NextCursor) > abi.MaxCursorLength || (r.Cache != nil && !cacheOK(r.Cache)) {
		return false
	}
	for i := range r.ResourceTemplates {
		x := &r.ResourceTemplates[i]
		if x.URITemplate == "" || len(x.URITemplate) > abi.MaxURILength || !printable.all(x.URITemplate, 'a') ||
			x.Name == "" || !textOK(x.Name) || !textOK(x.Title) || !textOK(x.Description) ||
			!c.mimeOK(x.MIMEType) || (x.Annotations != nil && !annotationsOK(x.Annotations)) || (len(x.Icons) > 0 && !c.iconsOK(x.Icons)) ||
			abi.CheckTemplate(x.URITemplate, c.space) != nil { // the rule itself: templates are few
			return false
		}
	}
	return true
}

func (c *checker) changesResult(r *abi.ChangesResult) bool {
	if len(r.Updated) > abi.MaxListItems || len(r.Cursor) > abi.MaxCursorLength {
		return false
	}
	for _, u := range r.Updated {
		if !c.owned(u) {
			return false
		}
	}
	return true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
