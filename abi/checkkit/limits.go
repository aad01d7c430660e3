package checkkit

import (
	"fmt"
	"time"
)

// checkLimits compares the slowest call and the largest linear memory the
// run saw with the limits the host enforces: a provider that needs half
// its deadline here, with a tiny test load, will hit it in production.
func (b *battery) checkLimits(c *Check) {
	st := &b.rep.Stats
	st.SlowestMs = float64(b.slowest.Microseconds()) / 1000
	st.TimeoutMs = b.s.Timeout.Milliseconds()
	st.MemoryHigh, st.MemoryLimit = b.memHigh, b.s.MemoryLimit
	if b.s.Timeout <= 0 && (b.s.MemoryLimit == 0 || b.s.MemoryHigh == nil) {
		c.skip("the subject gave no limits to compare with")
		return
	}
	if t := b.s.Timeout; t > 0 {
		switch {
		case b.slowest > t/2:
			c.add(Problem{What: st.Slowest, Why: fmt.Sprintf("took %v, over half the %v deadline", b.slowest.Round(time.Millisecond), t),
				Fix: "make the call cheaper (page results, cache what is computed at every call, avoid work that grows with the data) or ask the operator for a longer --timeout"})
		case b.slowest > t/10:
			c.note(fmt.Sprintf("the slowest call, %s, took %v, over a tenth of the %v deadline", st.Slowest, b.slowest.Round(time.Millisecond), t))
		}
	} else {
		c.note("no deadline given: time not compared")
	}
	if lim := b.s.MemoryLimit; lim > 0 && b.s.MemoryHigh != nil {
		switch {
		case b.memHigh > lim/2:
			c.add(Problem{What: b.memCall, Why: fmt.Sprintf("linear memory reached %s, over half the %s limit", mib(b.memHigh), mib(lim)),
				Fix: "allocate less per call (stream or page large results, free buffers), or ask the operator for more --memory"})
		case b.memHigh > lim/4:
			c.note(fmt.Sprintf("linear memory reached %s after %s, over a quarter of the %s limit", mib(b.memHigh), b.memCall, mib(lim)))
		}
	} else {
		c.note("no memory limit or measure given: memory not compared")
	}
}

func mib(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
