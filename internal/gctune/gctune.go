// Package gctune sets the Go garbage collector's targets for a server
// process: one that allocates a lot per request (decoding, encoding and
// copying messages) and keeps little. It is applied by `mcp-wasm serve`
// and by the native anchor it is measured against, so that the comparison
// stays fair. It never overrides what the environment sets, and it never
// sets a soft memory limit above what the process's cgroup allows: a
// server in a small container collects harder instead of being killed.
package gctune

import (
	"os"
	"runtime/debug"
)

const (
	// Percent is the GOGC the server runs with: the heap may grow to five
	// times what is live before a collection. The Go default (100) makes
	// the MCP layer's garbage (about 150 KB per request in go-sdk) trigger
	// a collection every dozen requests on a small heap; at 400 the
	// collector's share of a request falls by a fifth to a third. It is the
	// ceiling: on a larger live heap the tuner (headroom.go) sets less.
	Percent = 400
	// Limit is the soft memory limit (GOMEMLIMIT) that bounds what the
	// higher GOGC may cost when no cgroup sets a smaller one: near it the
	// collector runs as often as it must.
	Limit = 1 << 30
	// CgroupShare is the share of a cgroup's memory limit, in percent,
	// that the soft limit may use before Reserve is taken off. The rest is
	// memory the Go collector does not count and cannot free: guests'
	// linear memories (mapped outside the Go heap), the binary's text,
	// thread stacks and the kernel's page cache charged to the group.
	CgroupShare = 85
	// Reserve is taken off the cgroup's share for the compile worker, a
	// child process in the same cgroup that compiles untrusted modules
	// the cache does not hold. It is at most an eighth of the limit, so a
	// small container keeps most of its memory for the server.
	Reserve = 64 << 20
)

// Decision is what Apply set and why.
type Decision struct {
	Percent int   // GOGC in effect
	Limit   int64 // soft memory limit in effect, in bytes
	// Source says where Limit came from: "GOMEMLIMIT" (the operator's,
	// left alone), the cgroup file that bounded it, or "default".
	Source string
	// Cgroup is the cgroup's memory limit in bytes, 0 if none was found.
	Cgroup int64
}

// Apply sets GOGC to Percent unless GOGC is set (and from then on, after
// each collection, to what gives Headroom over the live heap, between
// MinPercent and Percent), and the soft memory limit
// unless GOMEMLIMIT is set: to Limit, or lower when the process's cgroup
// (v2 memory.max, v1 memory.limit_in_bytes, the smallest up the tree)
// allows less, to SoftLimit of that. It returns what is in effect.
func Apply() Decision {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
		startTuner(Percent) // headroom.go: lower as the live heap grows
	}
	d := decide("/", os.Getenv)
	if d.Source != "GOMEMLIMIT" {
		debug.SetMemoryLimit(d.Limit)
	}
	d.Percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(d.Percent)
	d.Limit = debug.SetMemoryLimit(-1)
	return d
}

// decide computes the soft limit from the environment and the cgroup file
// system under root ("/" for the real one) without applying it.
func decide(root string, getenv func(string) string) Decision {
	cg, src := cgroupLimit(root)
	if getenv("GOMEMLIMIT") != "" {
		return Decision{Source: "GOMEMLIMIT", Cgroup: cg}
	}
	if cg == 0 {
		return Decision{Limit: Limit, Source: "default"}
	}
	if soft := SoftLimit(cg); soft < Limit {
		return Decision{Limit: soft, Source: src, Cgroup: cg}
	}
	return Decision{Limit: Limit, Source: "default", Cgroup: cg}
}

// SoftLimit is the soft memory limit for a cgroup limit of cgroup bytes:
// CgroupShare percent of it, less Reserve or an eighth of it, whichever
// is smaller.
func SoftLimit(cgroup int64) int64 {
	reserve := min(int64(Reserve), cgroup/8)
	return cgroup/100*CgroupShare - reserve
}
