package checkkit

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// checkTemplates pages through templates like list, checks that every
// template parses and stays in the provider's space, and, where the
// provider completes, expands each template with the first value its
// completions offer for every variable and reads the result: a value a
// client is offered must lead to something.
func (b *battery) checkTemplates(c *Check) {
	if !b.declares(abi.OpTemplates) {
		c.skip("describe does not declare templates")
		return
	}
	b.pageTemplates(c)
	b.rep.Stats.Templates = len(b.templates)
	if len(c.Problems) > 0 || len(b.templates) == 0 {
		return
	}
	if !b.declares(abi.OpComplete) {
		c.note("describe does not declare complete: clients get no suggestions for template variables, and the battery cannot find values to read")
		return
	}
	for i := range b.templates {
		if !b.completeAndRead(c, &b.templates[i]) {
			return
		}
	}
}

func (b *battery) pageTemplates(c *Check) {
	seen := map[string]int{}
	cursors := map[string]int{}
	cursor := ""
	for page := 1; ; page++ {
		if page > b.opts.MaxPages {
			c.add(Problem{What: fmt.Sprintf("templates, %d pages", b.opts.MaxPages),
				Why: "the listing of templates does not end", Fix: "return no nextCursor on the last page"})
			return
		}
		o := b.firstTemplates
		if page > 1 || o == nil {
			x := b.templatesPage(cursor)
			o = &x
		}
		if o.err != nil {
			c.add(Problem{What: "templates" + cursorText(cursor), Why: why(o.err), Fix: listFix(o.err, page)})
			return
		}
		for _, t := range o.res.ResourceTemplates {
			if first, dup := seen[t.URITemplate]; dup {
				c.add(Problem{What: fmt.Sprintf("templates page %d", page),
					Why: fmt.Sprintf("template %s was already listed on page %d", quote(t.URITemplate), first),
					Fix: "list each template once"})
				continue
			}
			seen[t.URITemplate] = page
			if err := abi.CheckTemplate(t.URITemplate, b.space); err != nil {
				c.add(Problem{What: "template " + quote(t.URITemplate), Why: why(err),
					Fix: "write an RFC 6570 template whose literal start fixes the scheme (and authority) of the uriSpace, abi/ABI.md §6.2"})
				continue
			}
			if _, err := templateVars(t.URITemplate); err != nil {
				c.add(Problem{What: "template " + quote(t.URITemplate), Why: why(err), Fix: "write an RFC 6570 template"})
				continue
			}
			b.templates = append(b.templates, t)
		}
		next := o.res.NextCursor
		if next == "" {
			return
		}
		if first, loop := cursors[next]; loop {
			c.add(Problem{What: fmt.Sprintf("templates page %d", page),
				Why: fmt.Sprintf("its nextCursor %s was already returned by page %d", quote(next), first),
				Fix: "each nextCursor must name a later position than the cursor that asked for the page"})
			return
		}
		cursors[next] = page
		cursor = next
	}
}

// offered is how many values of one completion the battery tries to
// read, and drill how many times it completes further into a value that
// did not read (a directory "docs/" of a path, say, offered to be
// completed on).
const (
	offered = 10
	drill   = 5
)

// completeAndRead completes every variable of t in turn (each with the
// values chosen before it as context, as a client sends them; the first
// value offered for all but the last) and reads expansions with the values
// offered for the last: one of them must read. A value that does not read
// may be a step towards one (a directory of a path): the battery completes
// on it, as a client would, a few levels deep. It reports whether the
// check should go on.
func (b *battery) completeAndRead(c *Check, t *abi.ResourceTemplate) bool {
	vars, _ := templateVars(t.URITemplate)
	chosen := map[string]string{}
	for i, v := range vars {
		values, ok, goOn := b.completeVar(c, t, v, "", chosen)
		if !ok {
			return goOn
		}
		if i < len(vars)-1 {
			chosen[v] = values[0]
			continue
		}
		if !b.declares(abi.OpRead) {
			return true
		}
		return b.readOffered(c, t, v, values, chosen)
	}
	return true
}

// completeVar asks for the values of v given typed; ok is false when
// there are none to use, and goOn then says whether the check goes on.
func (b *battery) completeVar(c *Check, t *abi.ResourceTemplate, v, typed string, chosen map[string]string) (values []string, ok, goOn bool) {
	req := abi.CompleteRequest{Template: t.URITemplate, Argument: abi.CompleteArgument{Name: v, Value: typed}}
	if len(chosen) > 0 {
		req.Arguments = copyMap(chosen)
	}
	o := b.complete(req)
	switch {
	case o.err != nil && errors.Is(o.err, abi.ErrInvalidParams):
		c.note(fmt.Sprintf("complete {%s} of %s: %s (a provider may decline to complete a variable)", v, quote(t.URITemplate), why(o.err)))
		return nil, false, true
	case o.err != nil:
		return nil, false, c.add(Problem{What: b.log[len(b.log)-1].what, Why: why(o.err), Fix: fixFor(o.err)})
	case len(o.res.Values) == 0:
		c.note(fmt.Sprintf("complete {%s} of %s with %s typed offers no value, so the battery read nothing through it", v, quote(t.URITemplate), quote(typed)))
		return nil, false, true
	}
	return o.res.Values, true, true
}

// readOffered reads t expanded with each offered value of v in turn,
// drilling into the first that does not read, until one reads.
func (b *battery) readOffered(c *Check, t *abi.ResourceTemplate, v string, values []string, chosen map[string]string) bool {
	var first *Problem
	for level := 0; level < drill; level++ {
		for _, val := range values[:min(len(values), offered)] {
			if b.rep.Stats.Reads >= b.opts.MaxReads {
				return true
			}
			vals := copyMap(chosen)
			vals[v] = val
			uri, err := expand(t.URITemplate, vals)
			if err != nil {
				return c.add(Problem{What: "template " + quote(t.URITemplate), Why: why(err), Fix: "write an RFC 6570 template"})
			}
			o := b.read(uri)
			b.rep.Stats.Reads++
			if o.err == nil {
				b.reads = append(b.reads, readDone{uri: uri, res: o.res, template: t})
				return true
			}
			if first == nil {
				fix := fixFor(o.err)
				if errors.Is(o.err, abi.ErrNotFound) || errors.Is(o.err, abi.ErrInvalidParams) {
					fix = "complete must offer values that lead to something: a client reads what it is offered; derive completions from the same data read serves"
				}
				first = &Problem{What: fmt.Sprintf("read %s (template %s, {%s} as completed: %s)", quote(uri), quote(t.URITemplate), v, argsText(vals)),
					Why: why(o.err), Fix: fix}
			}
		}
		next, ok, goOn := b.completeVar(c, t, v, values[0], chosen)
		if !ok || slices.Equal(next, values) {
			if !goOn {
				return false
			}
			break
		}
		values = next
	}
	return c.add(*first)
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
