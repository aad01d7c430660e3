package checkkit

import (
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// polls is how many times the changes check polls after the baseline.
const polls = 8

// checkChanges drives the change feed as the host does (abi/ABI.md §11):
// a baseline, then polls each with the cursor the last one returned. The
// cursor must exist, be accepted back, not grow without end, and describe
// the state rather than one instance's memory: the same cursor on a fresh
// instance answers the same.
func (b *battery) checkChanges(c *Check) {
	if !b.declares(abi.OpChanges) {
		c.skip("describe does not declare changes")
		return
	}
	base := b.changes(abi.ChangesRequest{})
	if base.err != nil {
		c.add(Problem{What: "changes (baseline)", Why: why(base.err), Fix: fixFor(base.err)})
		return
	}
	if len(base.res.Updated) > 0 || base.res.ListChanged {
		c.note("the baseline (no cursor) reported changes; the host ignores them, and abi/ABI.md §11 says it SHOULD report none")
	}
	if base.res.Cursor == "" {
		c.add(Problem{What: "changes (baseline)", Why: "it returned no cursor, so the host's next poll is a baseline again and no change is ever announced",
			Fix: "return a cursor that describes the current state (a version or a hash), and report what changed since it when it comes back"})
		return
	}
	type step struct {
		cursor string
		res    *abi.ChangesResult
	}
	var steps []step
	cursor, growing, busy := base.res.Cursor, true, true
	for i := 0; i < polls; i++ {
		o := b.changes(abi.ChangesRequest{Cursor: cursor})
		if o.err != nil {
			fix := fixFor(o.err)
			if kindName(o.err) == "invalid_params" {
				fix = "accept every cursor you returned: the host sends back the last one, on any instance"
			}
			c.add(Problem{What: "changes" + cursorText(cursor), Why: why(o.err), Fix: fix})
			return
		}
		steps = append(steps, step{cursor, o.res})
		growing = growing && len(o.res.Cursor) > len(cursor)
		busy = busy && (len(o.res.Updated) > 0 || o.res.ListChanged)
		if o.res.Cursor != "" {
			cursor = o.res.Cursor
		}
	}
	if growing {
		c.add(Problem{What: fmt.Sprintf("changes, %d polls from the baseline", polls),
			Why: fmt.Sprintf("the cursor grew at every poll (now %d bytes): past %d bytes the host refuses it and the feed stops", len(cursor), abi.MaxCursorLength),
			Fix: "make the cursor a bounded description of the state (a version number or a hash), not a log of the polls"})
	}
	if busy {
		c.note(fmt.Sprintf("every one of %d polls reported a change: clients subscribed hear of one about every second", polls))
	}
	if b.s.Fresh == nil {
		c.note("no fresh instance to check that cursors work on any instance")
		return
	}
	fresh, err := b.s.Fresh(b.ctx)
	if err != nil {
		c.add(Problem{What: "start a fresh instance", Why: why(err), Fix: fixFor(err)})
		return
	}
	for _, st := range []step{steps[0], steps[len(steps)-1]} {
		req := abi.ChangesRequest{Cursor: st.cursor}
		res, err := fresh.Changes(b.ctx, req)
		b.calls++ // not timed: a fresh instance's call includes its start
		var r any
		if err == nil {
			r = res
		}
		if d := differs(st.res, nil, r, err); d != "" {
			c.add(Problem{What: "changes" + cursorText(st.cursor) + " on a fresh instance", Why: d,
				Fix: "a cursor must describe the state itself (a version, a hash), not refer to memory of one instance: any instance may get it back"})
			return
		}
	}
}
