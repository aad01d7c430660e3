package checkkit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// checkDescribe: the description is valid, and the operations it declares
// are the ones the module exports.
func (b *battery) checkDescribe(c *Check) {
	d := b.desc
	if err := d.Validate(); err != nil {
		c.add(Problem{What: "describe", Why: why(err),
			Fix: "describe must follow abi/ABI.md §6.1: the error names the member at fault"})
		return
	}
	if len(d.Operations) == 0 {
		c.note("describe declares no operation: the provider serves nothing a client can see")
	}
	if b.s.Exports == nil {
		return
	}
	for _, op := range d.Operations {
		if !slices.Contains(b.s.Exports, abi.ExportFor(op)) {
			c.add(Problem{What: "describe declares " + quote(op), Why: "the module does not export " + abi.ExportFor(op),
				Fix: "export " + abi.ExportFor(op) + " or remove " + quote(op) + " from describe's operations"})
		}
	}
	for _, e := range b.s.Exports {
		op, ok := strings.CutPrefix(e, abi.ExportPrefix)
		if ok && slices.Contains(abi.Operations, op) && !slices.Contains(d.Operations, op) {
			c.note(fmt.Sprintf("the module exports %s but describe does not declare %q, so the host never calls it "+
				"(expected of the Go and AssemblyScript SDKs, which export every operation; otherwise declare it or drop the export)", e, op))
		}
	}
}

// checkOperations calls every declared operation once with the input a
// client's first request would cause, and fails on a call that did not
// answer: a fault, or an operation the provider does not implement. Domain
// errors are answers; the checks after this one judge them.
func (b *battery) checkOperations(c *Check) {
	if len(b.desc.Operations) == 0 {
		c.skip("describe declares no operation")
		return
	}
	for _, op := range b.desc.Operations {
		var what string
		var err error
		switch op {
		case abi.OpList:
			o := b.list("")
			b.firstList, what, err = &o, "list (first page)", o.err
		case abi.OpTemplates:
			o := b.templatesPage("")
			b.firstTemplates, what, err = &o, "templates (first page)", o.err
		case abi.OpRead:
			uri := b.probeURI()
			if b.firstList != nil && b.firstList.err == nil && len(b.firstList.res.Resources) > 0 {
				uri = b.firstList.res.Resources[0].URI
			}
			what, err = "read "+quote(uri), b.read(uri).err
		case abi.OpComplete:
			o := b.complete(b.firstCompletion())
			what, err = b.log[len(b.log)-1].what, o.err
		case abi.OpChanges:
			what, err = "changes (baseline)", b.changes(abi.ChangesRequest{}).err
		default:
			continue // Validate refused it already
		}
		if isFault(err) {
			c.add(Problem{What: what, Why: why(err), Fix: fixFor(err)})
		}
	}
}

// firstCompletion is the first completion a client would ask: the first
// variable of the first template, with nothing typed. A provider without
// templates gets a template in its space.
func (b *battery) firstCompletion() abi.CompleteRequest {
	if b.firstTemplates != nil && b.firstTemplates.err == nil {
		for _, t := range b.firstTemplates.res.ResourceTemplates {
			if vars, err := templateVars(t.URITemplate); err == nil && len(vars) > 0 {
				return abi.CompleteRequest{Template: t.URITemplate, Argument: abi.CompleteArgument{Name: vars[0]}}
			}
		}
	}
	return abi.CompleteRequest{Template: rootURI(b.space) + "{id}", Argument: abi.CompleteArgument{Name: "id"}}
}
