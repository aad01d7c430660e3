package mcpw

import (
	"context"
	"errors"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
)

// fake implements every operation; err and panicWith drive failures.
type fake struct {
	ops       []string
	err       error
	panicWith any
	list      *abi.ListResult
	read      *abi.ReadResult
}

func (f *fake) Describe() abi.Describe {
	return abi.Describe{
		Name: "fake", Version: "1.0.0",
		URISpace:   []abi.URIRoot{{Scheme: "fake"}},
		Operations: f.ops,
		Requests:   &abi.Requests{Config: []abi.ConfigRequest{{Key: "greeting"}}},
	}
}

func (f *fake) fail() error {
	if f.panicWith != nil {
		panic(f.panicWith)
	}
	return f.err
}

func (f *fake) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	if f.list != nil {
		return f.list, nil
	}
	if cursor == "" {
		return &abi.ListResult{Resources: []abi.Resource{{URI: "fake:///a", Name: "a"}}, NextCursor: "p2"}, nil
	}
	return &abi.ListResult{}, nil
}

func (f *fake) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	return &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{{URITemplate: "fake:///{id}", Name: "item"}}}, f.fail()
}

func (f *fake) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	if f.read != nil {
		return f.read, nil
	}
	if uri == "fake:///empty" {
		return &abi.ReadResult{Contents: []abi.Content{Text(uri, "text/plain", "")}}, nil
	}
	if !strings.HasPrefix(uri, "fake:///") {
		return nil, NotFound("no resource %q", uri)
	}
	greeting, _ := Config(ctx, "greeting")
	Log(ctx, LevelInfo, "read "+uri)
	return &abi.ReadResult{Contents: []abi.Content{Text(uri, "text/plain", greeting), Blob(uri, "application/octet-stream", []byte{0, 1, 2})}}, nil
}

func (f *fake) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if req.Argument.Name != "id" {
		return nil, InvalidParams("unknown argument %q", req.Argument.Name)
	}
	return &abi.CompleteResult{Values: []string{req.Argument.Value + "1"}}, f.fail()
}

func (f *fake) Changes(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error) {
	return &abi.ChangesResult{Cursor: req.Cursor + "+", Updated: []string{"fake:///a"}, ListChanged: true}, f.fail()
}

// listOnly implements list alone.
type listOnly struct{ f *fake }

func (l listOnly) Describe() abi.Describe { return l.f.Describe() }
func (l listOnly) List(ctx context.Context, c string) (*abi.ListResult, error) {
	return l.f.List(ctx, c)
}

var errPlain = errors.New("disk on fire")
