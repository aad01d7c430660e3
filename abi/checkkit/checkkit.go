// Package checkkit is the provider author's test battery: it drives one
// provider through every operation it declares and reports, for each rule
// of abi/ABI.md a provider must keep, what failed, why, and how to fix it.
//
// It runs against the Provider interface, so the same battery checks a
// wasm module in the sandbox (mcp-wasm check, through runtime.Provider) and
// a Go provider natively (guests/go/mcpw/mcpwtest). It uses the standard
// library only and builds for GOOS=wasip1, like abi.
//
// The rules, one Check each: describe is valid and matches the exports;
// every declared operation answers; list pages terminate and never repeat a
// resource; every listed URI reads; templates parse and their completions
// give values that read; a URI that names nothing is reported as not found;
// contents match their declared mimeType and size; results are the same on
// a fresh instance; the change feed's cursors behave; time and memory per
// call stay well under the limits.
//
// It refuses to judge what it cannot see: it sends nothing a host would
// not send (no URI outside the provider's space, no input a client could
// not cause), it calls nothing concurrently, and a rule it has no means to
// check (a fresh instance, the limits) is skipped with the reason, never
// passed.
package checkkit

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// Provider is what the battery drives: one provider, its errors wrapping
// the abi error kinds (abi.ErrNotFound, abi.ErrTrap, ...) as a host's do.
// runtime.Provider implements it.
type Provider interface {
	Describe() abi.Describe
	List(ctx context.Context, cursor string) (*abi.ListResult, error)
	Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error)
	Read(ctx context.Context, uri string) (*abi.ReadResult, error)
	Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error)
	Changes(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error)
}

// Subject is the provider under test and what the host knows about it.
// Only Provider is required; every other field left zero skips the rule
// that needs it, with the reason in the report.
type Subject struct {
	Provider Provider
	// Fresh returns the same provider, whose every call runs on an
	// instance that has served no other call (for the "fresh" and
	// "changes" rules). Its providers are not closed by the battery: the
	// caller owns them.
	Fresh func(ctx context.Context) (Provider, error)
	// Exports are the module's export names, nil when there is no module.
	Exports []string
	// Timeout is the deadline of one call; MemoryLimit the linear memory
	// cap in bytes. Zero: unknown.
	Timeout     time.Duration
	MemoryLimit uint64
	// MemoryHigh returns the largest linear memory the provider's
	// instances have reached so far; nil when unknown.
	MemoryHigh func() uint64
}

// Options bound the battery's work. The zero value takes the defaults.
type Options struct {
	// MaxPages bounds the pages of list and of templates: a listing
	// longer than that fails as one that does not end. Default 1000.
	MaxPages int
	// MaxReads bounds the reads of listed resources and of template
	// expansions. Default 1000.
	MaxReads int
	// MaxFresh bounds the calls replayed on fresh instances. Default 30.
	MaxFresh int
}

func (o Options) withDefaults() Options {
	if o.MaxPages <= 0 {
		o.MaxPages = 1000
	}
	if o.MaxReads <= 0 {
		o.MaxReads = 1000
	}
	if o.MaxFresh <= 0 {
		o.MaxFresh = 30
	}
	return o
}

// The checks, in the order they run and are reported.
const (
	CheckDescribe   = "describe"
	CheckOperations = "operations"
	CheckList       = "list"
	CheckRead       = "read"
	CheckTemplates  = "templates"
	CheckNotFound   = "not-found"
	CheckContents   = "contents"
	CheckFresh      = "fresh"
	CheckChanges    = "changes"
	CheckLimits     = "limits"
	// CheckLoad is the only check of a report made by Failed: the
	// module did not load, so nothing else could run.
	CheckLoad = "load"
)

var titles = map[string]string{
	CheckLoad:       "the module loads with the limits and grants given",
	CheckDescribe:   "describe is valid and matches the exports",
	CheckOperations: "every declared operation answers",
	CheckList:       "list pages terminate and never repeat a resource",
	CheckRead:       "every listed URI reads",
	CheckTemplates:  "templates parse and their completions give values that read",
	CheckNotFound:   "a URI that names nothing is reported as not found",
	CheckContents:   "contents match their declared mimeType and size",
	CheckFresh:      "results are the same on a fresh instance",
	CheckChanges:    "the change feed's cursors behave",
	CheckLimits:     "time and memory per call stay well under the limits",
}

// Status of a check.
const (
	Pass = "pass"
	Fail = "fail"
	Skip = "skip"
)

// Report is the outcome of a run.
type Report struct {
	Provider string  `json:"provider,omitempty"` // name and version, from describe
	Passed   bool    `json:"passed"`
	Checks   []Check `json:"checks"`
	Stats    Stats   `json:"stats"`
}

// Check is the outcome of one rule.
type Check struct {
	Name     string    `json:"name"`
	Title    string    `json:"title"`
	Status   string    `json:"status"`
	Reason   string    `json:"reason,omitempty"` // why it was skipped
	Problems []Problem `json:"problems,omitempty"`
	// Omitted counts problems found past the first maxProblems.
	Omitted int `json:"omitted,omitempty"`
	// Notes are findings that do not fail the check: worth a look.
	Notes []string `json:"notes,omitempty"`
}

// Problem is one failure: what was done, why it is wrong, how to fix it.
// Every string a guest chose is quoted (%q) in What and Why.
type Problem struct {
	What string `json:"what"`
	Why  string `json:"why"`
	Fix  string `json:"fix"`
}

// Stats sum up the run.
type Stats struct {
	Calls     int    `json:"calls"`
	Resources int    `json:"resources"`
	Templates int    `json:"templates"`
	Reads     int    `json:"reads"`
	Slowest   string `json:"slowest,omitempty"` // the slowest call
	// SlowestMs is the slowest call's duration in milliseconds.
	SlowestMs   float64 `json:"slowestMs"`
	TimeoutMs   int64   `json:"timeoutMs,omitempty"`
	MemoryHigh  uint64  `json:"memoryHigh,omitempty"`
	MemoryLimit uint64  `json:"memoryLimit,omitempty"`
}

// maxProblems is how many problems a check keeps; it stops looking after
// that many, so a provider that fails every call costs no more than that
// many deadlines per check.
const maxProblems = 10

// Failed is the report of a provider that could not be checked at all:
// what (the module, say) did not load, and the error saying why.
func Failed(what string, err error, fix string) *Report {
	return &Report{Checks: []Check{{Name: CheckLoad, Title: titles[CheckLoad], Status: Fail,
		Problems: []Problem{{What: what, Why: clip(err.Error()), Fix: fix}}}}}
}

// Run runs the battery against s and returns the report; Report.Passed is
// false if any check failed. It stops early only when ctx is done.
func Run(ctx context.Context, s Subject, opts Options) *Report {
	b := newBattery(ctx, s, opts.withDefaults())
	d := s.Provider.Describe()
	b.desc, b.space = d, abi.URISpace(d.URISpace)
	b.rep.Provider = d.Name + " " + d.Version
	for _, rule := range []struct {
		name string
		run  func(*Check)
	}{
		{CheckDescribe, b.checkDescribe},
		{CheckOperations, b.checkOperations},
		{CheckList, b.checkList},
		{CheckRead, b.checkRead},
		{CheckTemplates, b.checkTemplates},
		{CheckNotFound, b.checkNotFound},
		{CheckContents, b.checkContents},
		{CheckFresh, b.checkFresh},
		{CheckChanges, b.checkChanges},
		{CheckLimits, b.checkLimits},
	} {
		c := Check{Name: rule.name, Title: titles[rule.name], Status: Pass}
		if ctx.Err() != nil {
			c.Status, c.Reason = Skip, "the run was cancelled: "+ctx.Err().Error()
		} else {
			rule.run(&c)
		}
		if len(c.Problems) > 0 {
			c.Status = Fail
		}
		b.rep.Checks = append(b.rep.Checks, c)
	}
	b.rep.Passed = true
	for _, c := range b.rep.Checks {
		b.rep.Passed = b.rep.Passed && c.Status != Fail
	}
	b.rep.Stats.Calls = b.calls
	return b.rep
}

// Failures counts the checks that failed.
func (r *Report) Failures() int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == Fail {
			n++
		}
	}
	return n
}

// add records a problem, up to maxProblems; it reports whether the
// check should go on looking.
func (c *Check) add(p Problem) bool {
	if len(c.Problems) >= maxProblems {
		c.Omitted++
		return false
	}
	c.Problems = append(c.Problems, p)
	return len(c.Problems) < maxProblems
}

func (c *Check) skip(reason string) { c.Status, c.Reason = Skip, reason }

func (c *Check) note(s string) { c.Notes = append(c.Notes, s) }

// Summary is the failed checks of r, one problem a paragraph (what, why,
// fix), for a test's failure message; "" when r passed.
func (r *Report) Summary() string {
	var b strings.Builder
	for _, c := range r.Checks {
		if c.Status != Fail {
			continue
		}
		fmt.Fprintf(&b, "FAIL %s: %s\n", c.Name, c.Title)
		for _, p := range c.Problems {
			fmt.Fprintf(&b, "  %s\n    why: %s\n    fix: %s\n", p.What, p.Why, p.Fix)
		}
		if c.Omitted > 0 {
			fmt.Fprintf(&b, "  (%d more problems not shown)\n", c.Omitted)
		}
	}
	return b.String()
}
