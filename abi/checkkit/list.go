package checkkit

import (
	"fmt"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// checkList pages through list as a client does, from the first page to
// the last: the pages must end, no cursor may come back (a client would
// loop), and no resource may be listed twice.
func (b *battery) checkList(c *Check) {
	if !b.declares(abi.OpList) {
		c.skip("describe does not declare list")
		return
	}
	where := map[string]int{} // uri -> page it was first listed on
	cursors := map[string]int{}
	cursor := ""
	for page := 1; ; page++ {
		if page > b.opts.MaxPages {
			c.add(Problem{What: fmt.Sprintf("list, %d pages", b.opts.MaxPages),
				Why: fmt.Sprintf("page %d still has a nextCursor (%s): the listing does not end", b.opts.MaxPages, quote(cursor)),
				Fix: "return no nextCursor on the last page; a cursor must move towards the end of a finite listing"})
			break
		}
		o := b.firstList
		if page > 1 || o == nil {
			x := b.list(cursor)
			o = &x
		}
		if o.err != nil {
			c.add(Problem{What: "list" + cursorText(cursor), Why: why(o.err), Fix: listFix(o.err, page)})
			break
		}
		for _, r := range o.res.Resources {
			if first, dup := where[r.URI]; dup {
				if !c.add(Problem{What: fmt.Sprintf("list page %d", page),
					Why: fmt.Sprintf("resource %s was already listed on page %d", quote(r.URI), first),
					Fix: "list each resource once: a cursor must resume after the last resource of its page, not before"}) {
					return
				}
				continue
			}
			where[r.URI] = page
			b.listed = append(b.listed, r)
		}
		next := o.res.NextCursor
		if next == "" {
			break
		}
		if first, loop := cursors[next]; loop {
			c.add(Problem{What: fmt.Sprintf("list page %d", page),
				Why: fmt.Sprintf("its nextCursor %s was already returned by page %d: a client paging on would loop forever", quote(next), first),
				Fix: "each nextCursor must name a later position than the cursor that asked for the page"})
			break
		}
		cursors[next] = page
		cursor = next
	}
	b.rep.Stats.Resources = len(b.listed)
}

func listFix(err error, page int) string {
	if page > 1 && kindName(err) == "invalid_params" {
		return "the provider refused a nextCursor it returned itself: accept every cursor you hand out, on any instance (keep the position in the cursor, not in memory)"
	}
	return fixFor(err)
}

// checkRead reads every listed resource: what a provider lists, a client
// will read.
func (b *battery) checkRead(c *Check) {
	switch {
	case !b.declares(abi.OpRead):
		c.skip("describe does not declare read")
		return
	case !b.declares(abi.OpList):
		c.skip("describe does not declare list: the templates check reads what completions offer")
		return
	case len(b.listed) == 0:
		c.skip("list gave no resources to read")
		return
	}
	for i := range b.listed {
		r := &b.listed[i]
		if b.rep.Stats.Reads >= b.opts.MaxReads {
			c.note(fmt.Sprintf("read only the first %d listed resources (the read limit)", b.opts.MaxReads))
			return
		}
		o := b.read(r.URI)
		b.rep.Stats.Reads++
		if o.err != nil {
			fix := fixFor(o.err)
			if kindName(o.err) == "not_found" {
				fix = "every listed resource must read: list only what read serves, with the very same URI"
			}
			if !c.add(Problem{What: "read " + quote(r.URI) + " (listed)", Why: why(o.err), Fix: fix}) {
				return
			}
			continue
		}
		if !hasContent(o.res, r.URI) {
			c.note(fmt.Sprintf("read %s answered no content with that URI: clients match contents to the resource by URI", quote(r.URI)))
		}
		b.reads = append(b.reads, readDone{uri: r.URI, res: o.res, resource: r})
	}
}

func hasContent(r *abi.ReadResult, uri string) bool {
	for _, c := range r.Contents {
		if c.URI == uri {
			return true
		}
	}
	return false
}

// rootURI is a URI prefix at the top of the provider's space, that a name
// can be appended to: "notes:///", "file:///data/", "https://api.example.com/v1/".
func rootURI(space abi.URISpace) string {
	if len(space) == 0 {
		return "x:///"
	}
	r := space[0]
	auth := r.Authority
	if auth == abi.AnyAuthority {
		auth = "example.invalid"
	}
	p := r.PathPrefix
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return r.Scheme + "://" + auth + p
}

// probeName is the name the battery gives what does not exist.
const probeName = "mcp-wasm-check-no-such-resource"

// probeURI is a URI in the provider's space that names nothing, as far
// as the battery can tell: not listed, and by its name not likely to be.
func (b *battery) probeURI() string {
	uri := rootURI(b.space) + probeName
	for i := 2; b.isListed(uri); i++ {
		uri = fmt.Sprintf("%s%s-%d", rootURI(b.space), probeName, i)
	}
	return uri
}

func (b *battery) isListed(uri string) bool {
	for _, r := range b.listed {
		if r.URI == uri {
			return true
		}
	}
	return false
}
