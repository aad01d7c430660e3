package runtime_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-wasm/mcp-wasm/runtime"
)

// Load a provider module with its limits and grants, and call it. Every
// limit is on by default; the With setters change them.
func ExampleRuntime_Load() {
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.NewConfig().WithMaxConcurrency(8))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close(ctx)
	wasm, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", "good.wasm"))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := runtime.NewProviderConfig().
		WithTimeout(2*time.Second).
		WithMemoryLimit(16<<20).
		WithPoolSize(2).
		WithQuarantine(3, time.Second, time.Minute)
	p, err := rt.Load(ctx, "good.wasm", wasm, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close(ctx)
	res, err := p.Read(ctx, "evil:good")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name(), *res.Contents[0].Text, "faults:", p.Stats().Faults)
	// Output: evil ok faults: 0
}
