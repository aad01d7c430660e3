// Command httpjson is an example mcp-wasm provider that turns a JSON HTTP
// API into resources: httpjson:///users/1 is GET {base_url}users/1. It
// shows outbound HTTP through the host (mcpw.Fetch), config values and a
// secret (a bearer token).
//
// Config: base_url (required, an http or https URL; the operator grants
// HTTP to it with --allow-http), paths (comma-separated API paths listed
// as resources), token (secret, sent as "Authorization: Bearer").
//
// It refuses paths with "." or ".." segments, empty segments or
// characters outside [A-Za-z0-9._~-], bodies that are not JSON, and
// serves nothing the host's http grant does not allow.
package main

import (
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/httpjson/httpjsonprov"
)

func init() { mcpw.Register(httpjsonprov.New()) }

// main is never run: the module is built as a reactor (-buildmode=c-shared).
func main() {}
