package mcpwtest_test

import (
	"context"
	"fmt"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw/mcpwtest"
)

// greeter serves one resource.
type greeter struct{}

func (greeter) Describe() abi.Describe {
	return abi.Describe{Name: "greeter", Version: "0.1.0", URISpace: []abi.URIRoot{{Scheme: "hello"}}}
}

func (greeter) List(context.Context, string) (*abi.ListResult, error) {
	return &abi.ListResult{Resources: []abi.Resource{{URI: "hello:///world", Name: "world", MIMEType: "text/plain"}}}, nil
}

func (greeter) Read(_ context.Context, uri string) (*abi.ReadResult, error) {
	if uri != "hello:///world" {
		return nil, mcpw.NotFound("nothing at %s", uri)
	}
	return &abi.ReadResult{Contents: []abi.Content{mcpw.Text(uri, "text/plain", "Hello, world!")}}, nil
}

// In a test, mcpwtest.Check(t, newProvider) fails t with what is wrong;
// Run returns the report.
func Example() {
	rep := mcpwtest.Run(context.Background(), func() mcpw.Provider { return greeter{} }, mcpwtest.Options{})
	for _, c := range rep.Checks {
		fmt.Println(c.Status, c.Name)
	}
	fmt.Println("passed:", rep.Passed)
	// Output:
	// pass describe
	// pass operations
	// pass list
	// pass read
	// skip templates
	// pass not-found
	// pass contents
	// pass fresh
	// skip changes
	// skip limits
	// passed: true
}
