package runtime

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/runtime/internal/wasmbin"
)

const wasiModule = "wasi_snapshot_preview1"

// importClass says when an import may be linked.
type importClass int

const (
	classAlways     importClass = iota // harmless with nothing granted
	classFilesystem                    // needs a directory grant
)

// wasiImports is the WASI preview 1 allowlist. Clocks and random are fake
// unless granted; fds other than stdio exist only through directory grants.
var wasiImports = map[string]importClass{
	"args_get": classAlways, "args_sizes_get": classAlways,
	"environ_get": classAlways, "environ_sizes_get": classAlways,
	"clock_res_get": classAlways, "clock_time_get": classAlways,
	"fd_close": classAlways, "fd_fdstat_get": classAlways, "fd_fdstat_set_flags": classAlways,
	"fd_prestat_get": classAlways, "fd_prestat_dir_name": classAlways,
	"fd_write": classAlways, "fd_read": classAlways, "fd_seek": classAlways, "fd_tell": classAlways,
	"fd_sync": classAlways, "fd_datasync": classAlways, "fd_advise": classAlways,
	"proc_exit": classAlways, "random_get": classAlways, "sched_yield": classAlways, "poll_oneoff": classAlways,
	"fd_filestat_get": classAlways, "fd_pread": classAlways, "fd_readdir": classFilesystem,
	"path_open": classFilesystem, "path_filestat_get": classFilesystem, "path_readlink": classFilesystem,
	"fd_filestat_set_size": classFilesystem, "fd_filestat_set_times": classFilesystem,
	"fd_pwrite": classFilesystem, "fd_allocate": classFilesystem, "fd_renumber": classFilesystem,
	"path_create_directory": classFilesystem, "path_filestat_set_times": classFilesystem,
	"path_link": classFilesystem, "path_remove_directory": classFilesystem, "path_rename": classFilesystem,
	"path_symlink": classFilesystem, "path_unlink_file": classFilesystem,
}

// hostImport is the signature of an mcpw_v1 import: i32 params, optional i32 result.
type hostImport struct {
	params  int
	results int
}

var abiImports = map[string]hostImport{
	abi.ImportInputRead:    {2, 1},
	abi.ImportOutputWrite:  {2, 1},
	abi.ImportLog:          {3, 0},
	abi.ImportConfigGet:    {4, 1},
	abi.ImportContentWrite: {2, 1},
	abi.ImportHTTPFetch:    {2, 1},
	abi.ImportHTTPRead:     {2, 1},
}

// httpImports are linked only for providers granted outbound HTTP.
var httpImports = map[string]bool{abi.ImportHTTPFetch: true, abi.ImportHTTPRead: true}

// checkImports rejects, before compiling, every import the host will not
// link for this provider, naming it and the fix. Imports are checked in
// name order, so the error is the same whatever the module's order.
func checkImports(m *wasmbin.Module, g Grants) error {
	imports := append([]wasmbin.Import(nil), m.Imports...)
	sort.Slice(imports, func(i, j int) bool {
		return imports[i].Module+"."+imports[i].Name < imports[j].Module+"."+imports[j].Name
	})
	for _, im := range imports {
		if err := checkImport(im.Module, im.Name, m.Types[im.Type], g); err != nil {
			return err
		}
	}
	return nil
}

func checkImport(mod, name string, f wasmbin.FuncType, g Grants) error {
	switch {
	case mod == abi.ImportModule:
		want, ok := abiImports[name]
		if !ok {
			return fmt.Errorf("%w: %s.%s is not a host import of ABI v%d (have: %s): remove it or rebuild against a matching SDK", ErrForbiddenImport, mod, quote(name), abi.Version, strings.Join(sortedKeys(abiImports), ", "))
		}
		if !allI32Bytes(f.Params, want.params) || !allI32Bytes(f.Results, want.results) {
			return fmt.Errorf("%w: %s.%s has the wrong signature: see abi/ABI.md", ErrForbiddenImport, mod, name)
		}
		if httpImports[name] && !g.HTTP.Granted() {
			return fmt.Errorf("%w: %s.%s needs outbound HTTP but the operator granted none: grant the URL prefixes it may reach (--allow-http PREFIX) or remove the network use", ErrForbiddenImport, mod, name)
		}
	case strings.HasPrefix(mod, "mcpw_v"):
		return fmt.Errorf("%w: module imports %s, host supports %s: rebuild it against ABI v%d", ErrABIVersion, quote(mod), abi.ImportModule, abi.Version)
	case mod == wasiModule:
		class, ok := wasiImports[name]
		if !ok {
			kind := "an unsupported WASI function"
			if strings.HasPrefix(name, "sock_") {
				kind = "a socket function; providers get no sockets"
			}
			return fmt.Errorf("%w: %s.%s is %s: remove the dependency that uses it", ErrForbiddenImport, mod, quote(name), kind)
		}
		if class == classFilesystem && len(g.Dirs) == 0 {
			return fmt.Errorf("%w: %s.%s needs filesystem access but the operator granted no directory: grant one (--allow-dir) or remove the filesystem use", ErrForbiddenImport, mod, name)
		}
	case mod == "env" && name == "abort":
		// AssemblyScript's abort; linked as a trap.
	default:
		return fmt.Errorf("%w: %s.%s is not provided by the host: providers may import only %s, %s and env.abort", ErrForbiddenImport, quote(mod), quote(name), abi.ImportModule, wasiModule)
	}
	return nil
}

// checkExports verifies memory, describe, the reactor initializer and the
// signature of every ABI export, and detects other ABI versions.
func checkExports(compiled wazero.CompiledModule) (map[string]bool, error) {
	exports := compiled.ExportedFunctions()
	if _, ok := exports[abi.ExportDescribe]; !ok {
		for name := range exports {
			if strings.HasPrefix(name, "mcpw_v") && !strings.HasPrefix(name, abi.ExportPrefix) {
				return nil, fmt.Errorf("%w: module exports %s, host supports ABI v%d: rebuild it against ABI v%d", ErrABIVersion, quote(name), abi.Version, abi.Version)
			}
		}
		return nil, fmt.Errorf("%w: no %s export: is this an mcp-wasm provider? build it with a provider SDK (see abi/ABI.md)", ErrMissingExport, abi.ExportDescribe)
	}
	if _, ok := compiled.ExportedMemories()[abi.ExportMemory]; !ok {
		return nil, fmt.Errorf("%w: no exported memory named %q: export the module's memory", ErrMissingExport, abi.ExportMemory)
	}
	if f, ok := exports[abi.ExportInitialize]; ok && (len(f.ParamTypes()) != 0 || len(f.ResultTypes()) != 0) {
		return nil, fmt.Errorf("%w: %s must take and return nothing", ErrMissingExport, abi.ExportInitialize)
	}
	ops := map[string]bool{}
	for _, op := range append([]string{"describe"}, abi.Operations...) {
		f, ok := exports[abi.ExportFor(op)]
		if !ok {
			continue
		}
		if !allI32(f.ParamTypes(), 1) || !allI32(f.ResultTypes(), 1) {
			return nil, fmt.Errorf("%w: %s must have signature (i32) -> i32", ErrMissingExport, abi.ExportFor(op))
		}
		ops[op] = true
	}
	return ops, nil
}

func allI32(ts []api.ValueType, n int) bool {
	if len(ts) != n {
		return false
	}
	for _, t := range ts {
		if t != api.ValueTypeI32 {
			return false
		}
	}
	return true
}

// allI32Bytes reports whether ts (binary value types) are n i32s.
func allI32Bytes(ts []byte, n int) bool {
	if len(ts) != n {
		return false
	}
	for _, t := range ts {
		if t != 0x7f {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// quote renders a module-supplied name safely for an error message.
func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return fmt.Sprintf("%q", s)
}
