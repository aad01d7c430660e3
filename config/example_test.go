package config_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcp-wasm/mcp-wasm/config"
)

// Read a config file: every path comes out absolute, limits and grants are
// ready for the runtime, and every problem is reported at its line.
func ExampleRead() {
	dir, _ := os.MkdirTemp("", "config-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "notes.wasm"), []byte("\x00asm"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(`{
  "providers": [
    {"module": "notes.wasm", "schemePrefix": "team", "limits": {"timeout": "2s", "poolSize": 2}}
  ]
}`), 0o644)

	cfg, err := config.Read(filepath.Join(dir, "mcp.json"), os.LookupEnv)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := cfg.Providers[0]
	path, _ := p.Module.Path()
	fmt.Println(filepath.Base(path), p.SchemePrefix)
	fmt.Println(p.Limits.CallTimeout(), p.RuntimeConfig().PoolSize())

	_ = os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(`{"providers": [{"module": "notes.wasm", "limits": {"memry": "1MiB"}}]}`), 0o644)
	_, err = config.Read(filepath.Join(dir, "mcp.json"), os.LookupEnv)
	fmt.Println(err.(*config.Error).Problems[0][len(dir)+1:])
	// Output:
	// notes.wasm team
	// 2s 2
	// mcp.json:1:52: providers[0].limits (provider "notes.wasm"): unknown key "memry": did you mean "memory"?
}
