package testkit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Patient is the compile timeout, init timeout and call deadline of every
// provider in a test that is not about one of them. The defaults (60 s to
// compile, 10 s to start, 5 s a call) are the operator's, chosen for an idle
// server; a suite sharing two cores with other work (load 7 to 14 under
// -race) blows through them, so they would decide tests about something
// else. Patient stays under `make test`'s -timeout of 20m, so that a real
// hang still ends with go test's goroutine dump.
const Patient = 10 * time.Minute

// Wait bounds a test's wait for an event it caused (a reload, a
// notification, a file change seen by a poll): minutes, not seconds. A wait
// that reaches it is a bug, not a slow machine.
const Wait = 5 * time.Minute

// Tick is how often a polling wait checks its condition.
const Tick = 10 * time.Millisecond

// limiter is a provider configuration with the three time limits, such as
// runtime.ProviderConfig; testkit does not import runtime, so that the
// runtime's own internal tests may use it.
type limiter[C any] interface {
	WithTimeout(time.Duration) C
	WithInitTimeout(time.Duration) C
	WithCompileTimeout(time.Duration) C
}

// Limits returns c with Patient as its compile timeout, init timeout and
// call deadline. A test about one of them sets it after:
// testkit.Limits(runtime.NewProviderConfig()).WithTimeout(200 * time.Millisecond).
func Limits[C limiter[C]](c C) C {
	return c.WithTimeout(Patient).WithInitTimeout(Patient).WithCompileTimeout(Patient)
}

// Fill sets each zero duration to Patient and leaves the others: for the
// Timeout, InitTimeout and CompileTimeout of a config.Limits read from a
// test's config file, where a value the test wrote wins.
func Fill(ds ...*time.Duration) {
	for _, d := range ds {
		if *d == 0 {
			*d = Patient
		}
	}
}

// Flags are the command-line flags (of serve, call, inspect, check) that set
// the three limits to Patient. A test about one of them passes its own flag
// after these: the last one wins.
func Flags() []string {
	p := Patient.String()
	return []string{"--timeout", p, "--init-timeout", p, "--compile-timeout", p}
}

// Eventually waits up to Wait for cond, checking it every Tick, as
// require.Eventually does, with one difference: a cond that ends its
// goroutine (a failed require inside it calls FailNow) fails the test at
// once. require.Eventually would wait out all of Wait for an answer that
// never comes, and report "Condition never satisfied" instead of the
// failure.
func Eventually(tb testing.TB, cond func() bool, msgAndArgs ...any) {
	tb.Helper()
	deadline := time.NewTimer(Wait)
	defer deadline.Stop()
	for {
		done := make(chan bool, 1)
		go func() {
			returned := false
			defer func() {
				if !returned {
					close(done)
				}
			}()
			ok := cond()
			returned = true
			done <- ok
		}()
		select {
		case ok, returned := <-done:
			if !returned {
				tb.Log("the condition of Eventually stopped its goroutine (a failed require inside it?)")
				tb.FailNow()
			}
			if ok {
				return
			}
		case <-deadline.C:
			require.Fail(tb, "Condition never satisfied", msgAndArgs...)
		}
		select {
		case <-time.After(Tick):
		case <-deadline.C:
			require.Fail(tb, "Condition never satisfied", msgAndArgs...)
		}
	}
}
