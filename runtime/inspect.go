package runtime

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
)

// Report is what Inspect learns about a module: the static facts (imports,
// exports, ABI version) even when the module is rejected, and the
// provider's description when it loads, or when it was refused only for
// want of a grant (read then with stand-in grants that reach nothing).
type Report struct {
	Size       int           `json:"size"`
	ABIVersion int           `json:"abiVersion"` // 0 when no mcpw_vN names were found
	Imports    []ImportInfo  `json:"imports"`
	Exports    []string      `json:"exports"`
	Describe   *abi.Describe `json:"describe,omitempty"`
	Valid      bool          `json:"valid"`
	Problems   []string      `json:"problems,omitempty"`
	// Grants lines up what the module requests with what was granted.
	Grants []GrantLine `json:"grants,omitempty"`
}

// ImportInfo is one import and the host's verdict on it.
type ImportInfo struct {
	Module  string `json:"module"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Verdict string `json:"verdict"` // "linked", "linked (directory granted)", "needs a directory grant", "linked (http granted)", "needs an http grant", "forbidden"
}

// Inspect analyses wasm and tries to load it with cfg. It never returns an
// error: every problem is a line in Report.Problems.
func (r *Runtime) Inspect(ctx context.Context, hint string, wasm []byte, cfg ProviderConfig) Report {
	rep := Report{Size: len(wasm)}
	if err := checkHeader(wasm); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
		return rep
	}
	mod, err := parse(wasm, cfg)
	if err != nil {
		rep.Problems = append(rep.Problems, err.Error())
		return rep
	}
	for _, im := range mod.Imports {
		rep.Imports = append(rep.Imports, ImportInfo{Module: im.Module, Name: im.Name, Kind: importKindName(im.Kind), Verdict: importVerdict(im, cfg.grants)})
		if v := versionOf(im.Module); v > 0 {
			rep.ABIVersion = v
		}
	}
	p, err := r.Load(ctx, hint, wasm, cfg)
	if p != nil {
		defer p.Close(ctx)
		d := p.Describe()
		rep.Describe, rep.Valid, rep.ABIVersion = &d, true, abi.Version
	} else {
		rep.Problems = append(rep.Problems, err.Error())
		if errors.Is(err, ErrForbiddenImport) {
			// Show what it requests anyway, so the operator knows what to grant.
			rep.Describe, _ = r.describeWithStandIns(ctx, hint, wasm, cfg)
		}
	}
	rep.Grants = GrantReport(rep.Describe, cfg.grants)
	rep.Exports = exportNames(mod)
	for _, n := range rep.Exports {
		prefix, _, _ := strings.Cut(strings.TrimPrefix(n, "mcpw_"), "_")
		if v := versionOf("mcpw_" + prefix); v > 0 && rep.ABIVersion == 0 {
			rep.ABIVersion = v
		}
	}
	return rep
}

func importVerdict(im wasmbin.Import, g Grants) string {
	switch {
	case im.Kind != wasmbin.KindFunc:
		return "forbidden"
	case im.Module == abi.ImportModule:
		switch _, ok := abiImports[im.Name]; {
		case !ok:
			return "forbidden"
		case httpImports[im.Name] && g.HTTP.Granted():
			return "linked (http granted)"
		case httpImports[im.Name]:
			return "needs an http grant"
		}
		return "linked"
	case im.Module == wasiModule:
		switch class, ok := wasiImports[im.Name]; {
		case !ok:
			return "forbidden"
		case class == classFilesystem && len(g.Dirs) > 0:
			return "linked (directory granted)"
		case class == classFilesystem:
			return "needs a directory grant"
		}
		return "linked"
	case im.Module == "env" && im.Name == "abort":
		return "linked"
	}
	return "forbidden"
}

// versionOf parses "mcpw_vN" into N, or returns 0.
func versionOf(module string) int {
	rest, ok := strings.CutPrefix(module, "mcpw_v")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// exportNames lists the module's function and memory exports, sorted.
func exportNames(mod *wasmbin.Module) []string {
	var names []string
	for _, e := range mod.Exports {
		switch e.Kind {
		case wasmbin.KindFunc:
			names = append(names, e.Name)
		case wasmbin.KindMemory:
			names = append(names, e.Name+" (memory)")
		}
	}
	sort.Strings(names)
	return names
}
