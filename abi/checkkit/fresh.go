package checkkit

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// checkFresh replays the battery's calls, each on an instance that has
// served nothing else, and compares the answers. The host runs a pool of
// instances, replaces any that faults and may recycle them: a provider
// whose answers depend on which instance (and how many calls before)
// serves them gives clients answers that change at random.
func (b *battery) checkFresh(c *Check) {
	if b.s.Fresh == nil {
		c.skip("no fresh instances to compare with (the subject gave no Fresh)")
		return
	}
	fresh, err := b.s.Fresh(b.ctx)
	if err != nil {
		c.add(Problem{What: "start a fresh instance", Why: why(err), Fix: fixFor(err)})
		return
	}
	n := 0
	for _, rec := range b.log {
		if rec.op == abi.OpChanges || isFault(rec.err) {
			continue // the changes check replays its own; a fault is reported where it happened
		}
		if n >= b.opts.MaxFresh {
			break
		}
		n++
		res, err := rec.replay(b.ctx, fresh)
		b.calls++ // not timed: a fresh instance's call includes its start
		if d := differs(rec.res, rec.err, res, err); d != "" {
			if !c.add(Problem{What: rec.what, Why: "on a fresh instance " + d,
				Fix: "keep no state between calls that changes answers (counters, caches that fill differently, a clock or random source read at start): every instance must answer alike, since any may serve a call"}) {
				return
			}
		}
	}
	if n == 0 {
		c.skip("no call to replay")
	}
}

// differs describes how the second answer differs from the first; "" when
// they agree (errors agree when they are of the same kind).
func differs(res1 any, err1 error, res2 any, err2 error) string {
	switch {
	case err1 != nil && err2 != nil:
		if kindName(err1) != kindName(err2) {
			return fmt.Sprintf("it answered %s, before %s", kindName(err2), kindName(err1))
		}
		return ""
	case err1 != nil:
		return fmt.Sprintf("it answered a result, before %s (%s)", kindName(err1), why(err1))
	case err2 != nil:
		return fmt.Sprintf("it answered %s (%s), before a result", kindName(err2), why(err2))
	}
	if reflect.DeepEqual(res1, res2) {
		return ""
	}
	return "the result differs: " + diffText(res1, res2)
}

// diffText shows where the JSON of two results first differs.
func diffText(a, b any) string {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return "(not comparable as JSON)"
	}
	i := 0
	for i < len(ja) && i < len(jb) && ja[i] == jb[i] {
		i++
	}
	from := max(0, i-40)
	cut := func(s []byte) string { return quote(string(s[from:min(len(s), i+60)])) }
	return fmt.Sprintf("at byte %d, before %s, now %s", i, cut(ja), cut(jb))
}
