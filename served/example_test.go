package served_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcp-wasm/mcp-wasm/config"
	"github.com/mcp-wasm/mcp-wasm/runtime"
	"github.com/mcp-wasm/mcp-wasm/served"
	"github.com/mcp-wasm/mcp-wasm/server"
)

// Load the providers of a config and call one: the module's bytes come
// from the resolver, the name and scheme prefix from the operator.
func ExampleLoader_Load() {
	ctx := context.Background()
	rt, err := runtime.New(ctx, runtime.NewConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close(ctx)
	module := config.ModuleRef(filepath.Join("..", "testdata", "hostile", "good.wasm"))
	cfg := &config.Config{Providers: []config.Provider{{Module: module, Name: "demo", SchemePrefix: "x"}}}

	g, err := served.NewLoader(rt, served.ResolveFile, nil).Load(ctx, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close(ctx)
	p := g.Providers()[0]
	res, err := p.Read(ctx, "x+evil:good")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name(), served.URISpace(p.Describe()), res.Contents[0].URI, *res.Contents[0].Text)
	// Output: demo x+evil: x+evil:good ok
}

// A Resolver is where module bytes come from: handle the references you
// know (here, one module kept in memory), pass the others on.
func ExampleResolver() {
	wasm, _ := os.ReadFile(filepath.Join("..", "testdata", "wat", "minimal.wasm"))
	resolve := served.Builtin(map[config.ModuleRef][]byte{"builtin://minimal": wasm}, served.ResolveFile)

	m, err := resolve(context.Background(), served.Request{Ref: "builtin://minimal", MaxBytes: 1 << 20})
	fmt.Println(err, len(m.Digest), m.Watch == "")
	_, err = resolve(context.Background(), served.Request{Ref: "oci://registry.example/notes:1", MaxBytes: 1 << 20})
	fmt.Println(err)
	// Output:
	// <nil> 71 true
	// module oci://registry.example/notes:1: oci:// references are not supported here: give the path of a .wasm file
}

// Serve a set and reload it: the new generation is loaded and checked
// whole, then swapped into the server, and the old one is closed once its
// requests have returned.
func ExampleSet_Reload() {
	ctx := context.Background()
	rt, _ := runtime.New(ctx, runtime.NewConfig())
	defer rt.Close(ctx)
	dir, _ := os.MkdirTemp("", "served-example")
	defer os.RemoveAll(dir)
	good, _ := filepath.Abs(filepath.Join("..", "testdata", "hostile", "good.wasm"))
	path := filepath.Join(dir, "mcp.json")
	write := func(name string) {
		_ = os.WriteFile(path, []byte(`{"providers": [{"module": "`+good+`", "name": "`+name+`"}]}`), 0o644)
	}
	write("first")
	reread := func() (*config.Config, error) { return config.Read(path, os.LookupEnv) }
	cfg, _ := reread()

	loader := served.NewLoader(rt, served.ResolveFile, nil)
	g, _ := loader.Load(ctx, cfg)
	asServer := func(ps []*served.Provider) []server.Provider {
		out := make([]server.Provider, len(ps))
		for i, p := range ps {
			out[i] = p
		}
		return out
	}
	srv, _ := server.New(server.NewConfig().WithProviders(asServer(g.Providers())...))
	set := served.NewSet(loader, g, served.SetOptions{Reread: reread,
		Publish: func(next []*served.Provider) (<-chan struct{}, error) { return srv.SetProviders(asServer(next)...) }})
	defer set.Close(ctx)

	write("second")
	fmt.Println(set.Reload(ctx, "example"), set.Providers()[0].Name())
	write("Not A Name")
	fmt.Println(set.Reload(ctx, "example") != nil, set.Providers()[0].Name())
	// Output:
	// <nil> second
	// true second
}
