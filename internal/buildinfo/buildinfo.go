// Package buildinfo says which build of mcp-wasm is running, from what the
// Go toolchain records in every binary (runtime/debug.ReadBuildInfo): the
// module version, else the VCS revision it was built from. `--version`,
// the MCP serverInfo and the mcpwasm_build_info metric all read it, so the
// three never disagree. It reads nothing else: no file, no environment.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Info is one build's identity.
type Info struct {
	// Version is the main module's version (v1.2.3, or the pseudo-version
	// `go build` stamps from the VCS since Go 1.24, "+dirty" when the tree
	// had changes); else the VCS revision, "-modified" appended when the
	// tree had changes; else "devel" (a build without either, such as
	// `go test` or -buildvcs=false).
	Version string
	// Revision is the VCS revision (a git commit), "" when not recorded.
	Revision string
	// Modified reports uncommitted changes in the tree at build time.
	Modified bool
	// GoVersion is the toolchain that built the binary (runtime.Version).
	GoVersion string
}

// Read returns the running binary's Info.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "devel", GoVersion: runtime.Version()}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo is Read for a given build record.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{GoVersion: bi.GoVersion}
	if info.GoVersion == "" {
		info.GoVersion = runtime.Version()
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	switch v := bi.Main.Version; {
	case v != "" && v != "(devel)":
		info.Version = v
	case info.Revision != "":
		info.Version = info.Revision
		if info.Modified {
			info.Version += "-modified"
		}
	default:
		info.Version = "devel"
	}
	return info
}
